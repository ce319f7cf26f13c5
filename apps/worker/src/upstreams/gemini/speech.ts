import type { SpeechRequest } from '@relay/jobs';
import type { SpeechSynthesis, SynthesizedSpeech } from '../speech.js';
import type { CallObserver } from '../../metrics.js';
import { postJson, type UpstreamTarget } from '../post-json.js';
import { UpstreamError } from '../upstream-error.js';
import { withReadingDirection } from './direction.js';
import { toUpstreamError } from './errors.js';
import { geminiResponseSchema } from './schema.js';

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

export function createGeminiSpeech(upstream: UpstreamTarget, observe?: CallObserver): SpeechSynthesis {
  async function once(upstreamModel: string, body: Omit<SpeechRequest, 'model'>): Promise<SynthesizedSpeech> {
    const url = `${upstream.baseUrl}/v1beta/models/${encodeURIComponent(upstreamModel)}:generateContent`;
    const answer = await postJson(url, body, { 'x-goog-api-key': upstream.apiKey }, upstream.timeoutMs, observe);
    if (answer.status !== 200) throw toUpstreamError(answer.status, answer.body, upstream.apiKey);
    const parsed = geminiResponseSchema.safeParse(answer.body);
    if (!parsed.success) throw new UpstreamError('transient', 'upstream answered 200 with an unreadable body', { status: 200 });
    const { candidates, promptFeedback, usageMetadata, responseId } = parsed.data;
    const candidate = candidates[0];
    const blocked = promptFeedback?.blockReason ?? (BLOCKED.includes(candidate?.finishReason ?? '') ? candidate?.finishReason : undefined);
    if (blocked)
      throw new UpstreamError('refused', `the upstream refused the content (${blocked})`, { status: 400, code: blocked, moderation: true });
    const parts = (candidate?.content?.parts ?? []).flatMap((p) => (p.inlineData ? [p.inlineData] : []));
    const pcm = Buffer.concat(parts.map((p) => Buffer.from(p.data, 'base64')));
    if (pcm.length < MIN_AUDIO_BYTES) {
      const what = parts.length === 0 ? 'without audio' : `with ${pcm.length} bytes of audio`;
      throw new UpstreamError('transient', `the upstream answered ${what} (finishReason ${candidate?.finishReason ?? 'none'})`, {
        status: 200,
        code: 'NO_AUDIO',
      });
    }
    // a total left out (or 0) is the sum of its parts, as Google's own answers have it
    const totalTokenCount = usageMetadata.totalTokenCount || usageMetadata.promptTokenCount + usageMetadata.candidatesTokenCount;
    return {
      pcm,
      mimeType: parts[0]!.mimeType,
      finishReason: candidate?.finishReason ?? 'STOP',
      usageMetadata: { ...usageMetadata, totalTokenCount },
      responseId: responseId ?? '',
    };
  }

  return {
    /** Answers without speech are asked again, with a reading direction where the model takes one. */
    async synthesize(upstreamModel, body) {
      let sent = body;
      for (let attempt = 1; ; attempt++) {
        try {
          return await once(upstreamModel, sent);
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
