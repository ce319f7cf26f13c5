import type { SpeechRequest } from '@relay/jobs';
import type { HearSpeech, SpeechSynthesis, SynthesizedSpeech } from '../speech.js';
import type { CallObserver } from '../../metrics.js';
import { postJson, type UpstreamTarget } from '../post-json.js';
import { UpstreamError } from '../upstream-error.js';
import { withReadingDirection } from './direction.js';
import { styledFor } from './style.js';
import { toUpstreamError } from './errors.js';
import { geminiResponseSchema, type GeminiResponse } from './schema.js';
import { streamGeminiSpeech } from './speech-stream.js';

const BLOCKED = ['SAFETY', 'PROHIBITED_CONTENT', 'BLOCKLIST', 'SPII', 'IMAGE_SAFETY'];

/**
 * Answers without speech that the same request can get past: the 400 "Model tried to generate
 * text", a 200 with no audio part (`finishReason: OTHER`, `content: {}`, billed by the vendor all
 * the same), and audio too short to hold a sound (a bare WAV header has been recorded as a
 * "success"). Integrators retry them; so does the relay, a bounded number of times, and none is
 * charged to the caller.
 */
const NO_AUDIO_CODES = new Set(['TEXT_INSTEAD_OF_AUDIO', 'NO_AUDIO']);
export const NO_AUDIO_ATTEMPTS = 3;
/** 10 ms of 16-bit mono at 24 kHz: less than any spoken sound. */
const MIN_AUDIO_BYTES = 480;

const isNoAudio = (error: unknown): error is UpstreamError =>
  error instanceof UpstreamError && NO_AUDIO_CODES.has(error.details.code ?? '');

/** Failures no retry follows anyway: the rest become final once audio was heard. */
const FINAL: ReadonlySet<UpstreamError['kind']> = new Set(['refused', 'misconfigured', 'unusable']);

async function* one(answer: Promise<GeminiResponse>): AsyncGenerator<GeminiResponse> {
  yield await answer;
}

/**
 * The clip from its pieces (one for generateContent, a chunk each as a stream speaks): refusals
 * and answers without speech thrown as the vendor's taxonomy says, the usage from the last piece
 * that has one. `hear` gets the audio as it comes, from the first sound on (never a clip that
 * will be asked again for having none); a stream that breaks after it was heard cannot be asked
 * again without saying the start twice, so that failure is final.
 */
async function collect(pieces: AsyncIterable<GeminiResponse>, hear?: HearSpeech): Promise<SynthesizedSpeech> {
  const audio: Buffer[] = [];
  let bytes = 0;
  let heard = 0;
  let mimeType: string | undefined;
  let last: GeminiResponse | undefined;
  let finishReason: string | undefined;
  const pass = async () => {
    for (const chunk of audio.slice(heard)) await hear!(chunk, mimeType!);
    heard = audio.length;
  };
  try {
    for await (const piece of pieces) {
      const candidate = piece.candidates[0];
      finishReason = candidate?.finishReason ?? finishReason;
      const blocked = piece.promptFeedback?.blockReason ?? (BLOCKED.includes(finishReason ?? '') ? finishReason : undefined);
      if (blocked)
        throw new UpstreamError('refused', `the upstream refused the content (${blocked})`, {
          status: 400,
          code: blocked,
          moderation: true,
        });
      for (const part of candidate?.content?.parts ?? []) {
        if (!part.inlineData?.data) continue;
        mimeType ??= part.inlineData.mimeType;
        const chunk = Buffer.from(part.inlineData.data, 'base64');
        audio.push(chunk);
        bytes += chunk.length;
      }
      if (piece.usageMetadata.promptTokenCount + piece.usageMetadata.candidatesTokenCount > 0 || !last) last = piece;
      if (hear && bytes >= MIN_AUDIO_BYTES) await pass();
    }
  } catch (error) {
    if (heard === 0 || (error instanceof UpstreamError && FINAL.has(error.kind))) throw error;
    const seconds = (bytes / 48_000).toFixed(1);
    const details = error instanceof UpstreamError ? error.details : {};
    throw new UpstreamError('unusable', `the speech stream stopped after ${seconds} s of audio went out: ${(error as Error).message}`, {
      ...details,
      code: details.code ?? 'STREAM_BROKEN',
    });
  }
  if (bytes < MIN_AUDIO_BYTES) {
    const what = audio.length === 0 ? 'without audio' : `with ${bytes} bytes of audio`;
    throw new UpstreamError('transient', `the upstream answered ${what} (finishReason ${finishReason ?? 'none'})`, {
      status: 200,
      code: 'NO_AUDIO',
    });
  }
  const { usageMetadata, responseId } = last!;
  // a total left out (or 0) is the sum of its parts, as Google's own answers have it
  const totalTokenCount = usageMetadata.totalTokenCount || usageMetadata.promptTokenCount + usageMetadata.candidatesTokenCount;
  return {
    pcm: Buffer.concat(audio),
    mimeType: mimeType!,
    finishReason: finishReason ?? 'STOP',
    usageMetadata: { ...usageMetadata, totalTokenCount },
    responseId: responseId ?? '',
  };
}

export function createGeminiSpeech(upstream: UpstreamTarget, observe?: CallObserver): SpeechSynthesis {
  async function answer(upstreamModel: string, body: Omit<SpeechRequest, 'model'>): Promise<GeminiResponse> {
    const url = `${upstream.baseUrl}/v1beta/models/${encodeURIComponent(upstreamModel)}:generateContent`;
    const reply = await postJson(url, body, { 'x-goog-api-key': upstream.apiKey }, upstream.timeoutMs, observe);
    if (reply.status !== 200) throw toUpstreamError(reply.status, reply.body, upstream.apiKey);
    const parsed = geminiResponseSchema.safeParse(reply.body);
    if (!parsed.success) throw new UpstreamError('transient', 'upstream answered 200 with an unreadable body', { status: 200 });
    return parsed.data;
  }

  return {
    /**
     * The style where the model reads it; answers without speech asked again, with a reading
     * direction where the model takes one. With `hear`, the clip is streamed and heard as the
     * model speaks it.
     */
    async synthesize(upstreamModel, asked, { style, hear } = {}) {
      const body = styledFor(upstreamModel, asked, style);
      let sent = body;
      for (let attempt = 1; ; attempt++) {
        try {
          const pieces = hear ? streamGeminiSpeech(upstream, upstreamModel, sent, observe ?? (() => {})) : one(answer(upstreamModel, sent));
          return await collect(pieces, hear);
        } catch (error) {
          if (!isNoAudio(error)) throw error;
          if (attempt >= NO_AUDIO_ATTEMPTS)
            throw new UpstreamError('unusable', `the upstream answered no speech ${attempt} times (last: ${error.message})`, {
              status: error.details.status,
              code: error.details.code,
            });
          sent = withReadingDirection(upstreamModel, body) ?? body;
        }
      }
    },
  };
}
