import { getObject, parseOrThrow, type BlobStore, type Catalog } from '@relay/core';
import { contentTypeOf } from '@relay/audio/formats';
import { z } from 'zod';
import { speechHold } from '../admission.js';
import { parseFileId } from '../files.js';
import { speechJobResultSchema, type SpeechJob, type SpeechJobResult } from '../speech/job.js';
import { openAISpeechFields, openAISpeechSchema, speechModelNamed, styleOf, type OpenAISpeechRequest } from '../speech/openai-request.js';
import { voiceOf } from '../speech/openai-voices.js';
import { retirementHeaders } from '../speech/retirement-headers.js';
import { MAX_PART_CHARS } from '../speech/request.js';
import { SPEECH } from './capabilities.js';
import { batchAt, type Door } from './door.js';
import { callHeaders, CALL_ERRORS, errorResponses, pendingResponse, SECURITY } from './openapi.js';

const PATH = '/v1/audio/speech';
/** Audio bytes per `speech.audio.delta` event (base64 makes each event a third larger). */
const DELTA_BYTES = 24 * 1024;

export interface OpenAISpeechCall {
  model: string;
  request: SpeechJob['request'];
  /** `instructions`, kept apart from the words: the worker puts them where the vendor model reads style. */
  style?: string;
  output: NonNullable<SpeechJob['output']>;
  sse: boolean;
  /** What was asked, for Idempotency-Key comparisons. */
  asked: OpenAISpeechRequest;
}

const usageOf = (result: SpeechJobResult) => ({
  input_tokens: result.usageMetadata.promptTokenCount,
  output_tokens: result.usageMetadata.candidatesTokenCount,
  total_tokens: result.usageMetadata.totalTokenCount,
});

/**
 * Formats a stream can carry as they are made; FLAC's header needs the whole clip (its sample
 * count), so a FLAC answer comes whole, once the clip is made.
 */
const livePieces = (call: OpenAISpeechCall) => call.output.format !== 'flac';

const sse = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

/** OpenAI's speech events: the stored audio in base64 pieces as read from the store, then the usage. */
async function* audioEvents(store: BlobStore, key: string, result: SpeechJobResult): AsyncIterable<string> {
  const { body } = await getObject(store, key);
  let pending = Buffer.alloc(0);
  for await (const chunk of body) {
    pending = Buffer.concat([pending, chunk as Buffer]);
    while (pending.length >= DELTA_BYTES) {
      yield sse('speech.audio.delta', { audio: pending.subarray(0, DELTA_BYTES).toString('base64') });
      pending = pending.subarray(DELTA_BYTES);
    }
  }
  if (pending.length) yield sse('speech.audio.delta', { audio: pending.toString('base64') });
  yield sse('speech.audio.done', { usage: usageOf(result) });
}

/**
 * OpenAI's POST /v1/audio/speech onto the speech capability: the same job as Gemini's door (the
 * text and voices as Gemini takes them), with the audio stored in the format and tempo asked.
 * Answered with the bytes (streamed from the store), or as OpenAI's speech events.
 */
export function openAISpeechDoor(catalog: Catalog): Door<'speech', OpenAISpeechCall> {
  const schema = openAISpeechSchema(catalog);
  const retiring = (model: string) => retirementHeaders(catalog, model, (id) => `/v1/models/${id}`);
  return {
    name: 'openai.audio.speech',
    capability: SPEECH,
    dialect: 'openai',
    http: { paths: [PATH], credentials: 'openai', maxStringBytes: () => 6 * MAX_PART_CHARS },
    batch: batchAt(PATH),
    parse(sent) {
      const asked = parseOrThrow(schema, sent.body);
      const { id, model } = speechModelNamed(catalog, asked.model)!;
      const voice = (name: string) => ({ prebuiltVoiceConfig: { voiceName: voiceOf(model, name)! } });
      const speechConfig = asked.speakers
        ? {
            multiSpeakerVoiceConfig: { speakerVoiceConfigs: asked.speakers.map((s) => ({ speaker: s.name, voiceConfig: voice(s.voice) })) },
          }
        : { voiceConfig: voice(asked.voice as string) };
      const style = styleOf(asked);
      return {
        model: id,
        request: {
          contents: [{ role: 'user' as const, parts: [{ text: asked.input }] }],
          generationConfig: { responseModalities: ['AUDIO'], speechConfig },
        },
        ...(style ? { style } : {}),
        output: { format: asked.response_format ?? 'mp3', speed: asked.speed ?? 1 },
        sse: asked.stream_format === 'sse',
        asked,
      };
    },
    hold: (call) => speechHold(call.model, speechModelNamed(catalog, call.model)!.model, call.request, call.style),
    fingerprint: (call) => call.asked,
    inspect: async (call) => call,
    prepare: async (call, _jobId, meta): Promise<SpeechJob> => ({
      meta,
      model: call.model,
      request: call.request,
      ...(call.style ? { style: call.style } : {}),
      output: call.output,
      ...(livePieces(call) ? { live: true as const } : {}),
    }),
    live: {
      wanted: livePieces,
      head: (call) => ({ contentType: call.sse ? 'text/event-stream' : contentTypeOf(call.output.format), headers: retiring(call.model) }),
      piece: (call, { bytes }) => (call.sse ? sse('speech.audio.delta', { audio: bytes.toString('base64') }) : bytes),
    },
    async present(data, raw, { store, call, streamed }) {
      const result = speechJobResultSchema.parse(raw);
      const key = parseFileId(result.file.fileId)!.key;
      // the audio went out as it was made: what is left is the end
      if (streamed?.size) return { kind: 'events', events: call?.sse ? [sse('speech.audio.done', { usage: usageOf(result) })] : [] };
      const headers = retiring(data.model);
      if (call?.sse) return { kind: 'events', events: audioEvents(store, key, result), headers };
      return { kind: 'file', key, contentType: result.file.contentType, headers };
    },
    async line(_data, raw, linkBase) {
      const result = speechJobResultSchema.parse(raw);
      return {
        object: 'audio.speech',
        url: `${linkBase}/files/${result.file.fileId}`,
        content_type: result.file.contentType,
        bytes: result.file.bytes,
        duration_ms: result.durationMs,
        usage: usageOf(result),
      };
    },
    openapi: () => ({
      [PATH]: {
        post: {
          tags: ['speech'],
          summary: "Synthesize speech (OpenAI's dialect)",
          description:
            "The same speech job as Gemini's generateContent. voice takes OpenAI's names (mapped to Gemini voices by a documented table) or the model's own; instructions are the style, sent as Gemini's speechMetadata.style to the 3.8 models and as a direction before the text to the earlier ones; speed changes the tempo, not the pitch. Relay extension: speakers [{name, voice}] (exactly 2, as Gemini's multi-speaker takes).",
          security: SECURITY.openai,
          requestParams: { header: callHeaders },
          requestBody: { required: true, content: { 'application/json': { schema: openAISpeechFields } } },
          responses: {
            '200': {
              description:
                'The audio in response_format (streamed), or with stream_format sse: speech.audio.delta events, then speech.audio.done with usage',
              content: {
                ...Object.fromEntries(
                  (['audio/mpeg', 'audio/ogg', 'audio/aac', 'audio/flac', 'audio/wav', 'audio/pcm'] as const).map((type) => [
                    type,
                    { schema: z.string().meta({ format: 'binary' }) },
                  ]),
                ),
                'text/event-stream': { schema: z.string() },
              },
            },
            '202': pendingResponse,
            ...errorResponses('openai', CALL_ERRORS),
          },
        },
      },
    }),
  };
}
