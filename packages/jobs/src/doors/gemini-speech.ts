import { AppError, ownValue, parseOrThrow, type Catalog } from '@relay/core';
import { z } from 'zod';
import { queuedSpeechRequest, speechHold } from '../admission.js';
import { nearestModel } from '../nearest-model.js';
import { generateContentResponseSchema } from '../answers/google.js';
import { presentSpeech } from '../answers/present-speech.js';
import { speechJobResultSchema, type SpeechJob } from '../speech/job.js';
import { fileIdOf } from '../files.js';
import { retirementHeaders } from '../speech/retirement-headers.js';
import { MAX_PART_CHARS, speechRequestFields, speechRequestSchema } from '../speech/request.js';
import { SPEECH } from './capabilities.js';
import type { Door } from './door.js';
import { callHeaders, CALL_ERRORS, errorResponses, pendingResponse, SECURITY } from './openapi.js';

/** Google serves the Gemini API under all three; @google/genai 3.x calls v1, 2.x v1beta. */
export const GEMINI_VERSIONS = ['v1', 'v1beta', 'v1alpha'] as const;
export type GeminiVersion = (typeof GEMINI_VERSIONS)[number];

/** The relay's stable link to the stored WAV rides along in this header. */
export const AUDIO_URL_HEADER = 'X-Relay-Audio-Url';

/** Google's 404 for a model it does not serve (or not for this method), naming the nearest one it does. */
export function modelNotFound(version: string, model: string, known: readonly string[], method?: string) {
  const meant = nearestModel(model, known);
  return new AppError(
    'not_found',
    `models/${model} is not found for API version ${version}${method ? `, or is not supported for ${method}` : ''}` +
      (meant ? `; did you mean models/${meant}?` : ''),
  );
}

const ACTIONS = ['generateContent', 'streamGenerateContent'] as const;
type Action = (typeof ACTIONS)[number];

export interface GeminiCall {
  model: string;
  action: Action;
  /** streamGenerateContent?alt=sse: server-sent events as the clip is made; without it, a JSON array. */
  sse: boolean;
  request: SpeechJob['request'];
}

/** Google's stream events: `data:` lines, CRLF-separated as its own servers write them. */
const sseData = (body: unknown) => `data: ${JSON.stringify(body)}\r\n\r\n`;

/** streamGenerateContent with alt=sse is answered as the clip is spoken; its JSON-array form comes whole. */
const livePieces = (call: GeminiCall) => call.action === 'streamGenerateContent' && call.sse;

/** `vendor-2.5-flash-preview-tts:generateContent` -> model and action. */
function modelAction(value: string): { model: string; action: Action } | undefined {
  const at = value.lastIndexOf(':');
  const action = value.slice(at + 1);
  return at > 0 && (ACTIONS as readonly string[]).includes(action) ? { model: value.slice(0, at), action: action as Action } : undefined;
}

const BATCH_URL = /^\/(v1|v1beta|v1alpha)\/models\/([^/:]+):generateContent$/;

/**
 * Gemini's native speech (POST /{version}/models/{model}:generateContent and
 * :streamGenerateContent): the SPEC's second operation, as Google's SDKs send it.
 */
export function geminiSpeechDoor(catalog: Catalog): Door<'speech', GeminiCall> {
  const modelOf = (path: string, params: Readonly<Record<string, string>>) => {
    const target = modelAction(params.modelAction ?? '');
    const model = target && ownValue(catalog.speechModels, target.model);
    if (!target || !model) {
      const version = /^\/(v1\w*)\//.exec(path)?.[1] ?? 'v1beta';
      throw modelNotFound(version, target?.model ?? params.modelAction ?? '', Object.keys(catalog.speechModels), 'generateContent');
    }
    return { ...target, spec: model };
  };
  const retiring = (model: string) => retirementHeaders(catalog, model, (id) => `/v1beta/models/${id}`);
  const presentBody = async (data: SpeechJob, raw: unknown, store: Parameters<typeof presentSpeech>[2]) => {
    const result = speechJobResultSchema.parse(raw);
    return { result, body: await presentSpeech(result, data.model, store) };
  };
  return {
    name: 'gemini.generateContent',
    capability: SPEECH,
    dialect: 'google',
    http: {
      paths: GEMINI_VERSIONS.map((version) => `/${version}/models/:modelAction`),
      credentials: 'google',
      // a text part, every character a JSON escape at worst
      maxStringBytes: () => 6 * MAX_PART_CHARS,
      // :countTokens on the same paths is answered by the model routes; any other action is this door's 404
      claims: (params) => !(params.modelAction ?? '').endsWith(':countTokens'),
      resolve: (path, params) => void modelOf(path, params),
    },
    batch: {
      urls: Object.keys(catalog.speechModels).flatMap((model) =>
        GEMINI_VERSIONS.map((version) => `/${version}/models/${model}:generateContent`),
      ),
      params(url) {
        const match = BATCH_URL.exec(url);
        if (!match || !ownValue(catalog.speechModels, match[2]!)) return undefined;
        return { modelAction: `${match[2]!}:generateContent` };
      },
    },
    parse(sent) {
      const { model, action, spec } = modelOf(sent.path, sent.params);
      const request = queuedSpeechRequest(parseOrThrow(speechRequestSchema(model, spec), sent.body), spec);
      return { model, action, sse: sent.query.alt === 'sse', request };
    },
    hold: (call) => speechHold(call.model, ownValue(catalog.speechModels, call.model)!, call.request),
    fingerprint: (call) => ({ model: call.model, request: call.request }),
    inspect: async (call) => call,
    prepare: async (call, _jobId, meta): Promise<SpeechJob> => ({
      meta,
      model: call.model,
      request: call.request,
      ...(livePieces(call) ? { live: true as const } : {}),
    }),
    live: {
      wanted: livePieces,
      head: (call, jobId, publicBase) => ({
        contentType: 'text/event-stream',
        // the WAV the clip is stored as, named before it is made
        headers: { ...retiring(call.model), [AUDIO_URL_HEADER]: `${publicBase}/files/${fileIdOf(jobId, 0, 'wav')}` },
      }),
      piece: (call, { type, bytes }) =>
        sseData({
          candidates: [
            { content: { role: 'model', parts: [{ inlineData: { mimeType: type, data: bytes.toString('base64') } }] }, index: 0 },
          ],
          modelVersion: call.model,
        }),
    },
    async present(data, raw, { publicBase, store, call, streamed }) {
      if (streamed?.size) {
        // the audio went out as it was spoken: the last event says how it ended, and what it cost
        const result = speechJobResultSchema.parse(raw);
        const end = { candidates: [{ content: { role: 'model', parts: [] }, finishReason: result.finishReason, index: 0 }] };
        return {
          kind: 'events',
          events: [sseData({ ...end, usageMetadata: result.usageMetadata, modelVersion: data.model, responseId: result.responseId })],
        };
      }
      const { result, body } = await presentBody(data, raw, store);
      const headers = { ...retiring(data.model), [AUDIO_URL_HEADER]: `${publicBase}/files/${result.file.fileId}` };
      if (call?.action !== 'streamGenerateContent') return { kind: 'json', body, headers };
      // the whole clip in one event (or a one-element array): the clip came whole, or was asked as JSON
      if (call.sse) return { kind: 'events', events: [sseData(body)], headers };
      return { kind: 'json', body: [body], headers };
    },
    async line(data, raw, linkBase) {
      // Gemini's own answer, with the audio as a link (a fileData part) instead of inline PCM
      const result = speechJobResultSchema.parse(raw);
      return {
        candidates: [
          {
            content: {
              role: 'model',
              parts: [{ fileData: { mimeType: result.file.contentType, fileUri: `${linkBase}/files/${result.file.fileId}` } }],
            },
            finishReason: result.finishReason,
            index: 0,
          },
        ],
        usageMetadata: result.usageMetadata,
        modelVersion: data.model,
        responseId: result.responseId,
      };
    },
    openapi() {
      const modelParam = z.object({ model: z.enum(Object.keys(catalog.speechModels) as [string, ...string[]]) });
      const operation = (action: Action) => ({
        tags: ['speech'],
        summary:
          action === 'generateContent'
            ? 'Synthesize speech (Gemini-native)'
            : 'The same, streamed: with alt=sse an event per piece of audio as the vendor makes it, then the finish and usage',
        security: SECURITY.google,
        requestParams: {
          path: modelParam,
          header: callHeaders,
          ...(action === 'streamGenerateContent' ? { query: z.object({ alt: z.enum(['sse']).optional() }) } : {}),
        },
        requestBody: { required: true, content: { 'application/json': { schema: speechRequestFields } } },
        responses: {
          '200': {
            description: `Gemini GenerateContentResponse; ${AUDIO_URL_HEADER} links the stored WAV`,
            headers: z.object({ [AUDIO_URL_HEADER]: z.string() }),
            content:
              action === 'generateContent'
                ? { 'application/json': { schema: generateContentResponseSchema } }
                : { 'text/event-stream': { schema: z.string() } },
          },
          '202': pendingResponse,
          ...errorResponses('google', [...CALL_ERRORS, 404]),
        },
      });
      return Object.fromEntries(
        GEMINI_VERSIONS.flatMap((version) =>
          ACTIONS.map((action) => [
            `/${version}/models/{model}:${action}`,
            { 'x-express-route': `/${version}/models/:modelAction`, post: operation(action) },
          ]),
        ),
      );
    },
  };
}
