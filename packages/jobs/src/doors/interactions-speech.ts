import { getObjectBuffer, ownValue, parseOrThrow, type BlobStore, type Catalog } from '@relay/core';
import { z } from 'zod';
import { speechHold } from '../admission.js';
import { interactionSchema, interactionsEvent, interactionsUsage, type AudioContent } from '../answers/interactions.js';
import { parseFileId } from '../files.js';
import {
  audioFormatOf,
  interactionsSpeechFields,
  type InteractionsAudioType,
  type InteractionsSpeechRequest,
} from '../speech/interactions-request.js';
import { geminiSpeechOf } from '../speech/interactions-to-gemini.js';
import { speechJobResultSchema, type SpeechJob, type SpeechJobResult } from '../speech/job.js';
import { MAX_PART_CHARS } from '../speech/request.js';
import { retirementHeaders } from '../speech/retirement-headers.js';
import { pcmToWav, readWav, sampleRateOf } from '../speech/wav.js';
import { SPEECH } from './capabilities.js';
import type { Door } from './door.js';
import { GEMINI_VERSIONS, modelNotFound } from './gemini-speech.js';
import { callHeaders, CALL_ERRORS, errorResponses, pendingResponse, SECURITY } from './openapi.js';

export interface InteractionsCall {
  model: string;
  request: SpeechJob['request'];
  /** mp3 and Ogg Opus are encoded by the worker; WAV and L16 are the vendor's PCM as the job keeps it. */
  output?: SpeechJob['output'];
  answer: ReturnType<typeof audioFormatOf>;
  stream: boolean;
  /** What was asked, for Idempotency-Key comparisons. */
  asked: InteractionsSpeechRequest;
}

const ENCODED: Partial<Record<InteractionsAudioType, NonNullable<SpeechJob['output']>>> = {
  'audio/mp3': { format: 'mp3', speed: 1 },
  'audio/ogg_opus': { format: 'opus', speed: 1 },
};
/** The mime_type an answer's audio carries (Google's AudioContentMimeType names). */
const CONTENT_MIME: Record<InteractionsAudioType, string> = {
  'audio/wav': 'audio/wav',
  'audio/l16': 'audio/l16',
  'audio/mp3': 'audio/mp3',
  'audio/ogg_opus': 'audio/ogg',
};

/** What a job answers in: the call's asking, or (a job looked up later) its stored file. */
const answerOf = (data: SpeechJob, call: InteractionsCall | undefined): InteractionsCall['answer'] =>
  call?.answer ?? {
    mimeType: data.output?.format === 'mp3' ? 'audio/mp3' : data.output ? 'audio/ogg_opus' : 'audio/wav',
    delivery: 'inline',
  };

async function audioContent(
  result: SpeechJobResult,
  answer: InteractionsCall['answer'],
  store: BlobStore,
  publicBase: string,
): Promise<AudioContent> {
  const described = { type: 'audio' as const, mime_type: CONTENT_MIME[answer.mimeType], sample_rate: result.sampleRate, channels: 1 };
  if (answer.delivery === 'uri') return { ...described, uri: `${publicBase}/files/${result.file.fileId}` };
  const stored = await getObjectBuffer(store, parseFileId(result.file.fileId)!.key);
  const bytes = answer.mimeType === 'audio/l16' ? (readWav(stored)?.pcm ?? stored) : stored;
  return { ...described, data: bytes.toString('base64') };
}

/** A WAV header for a clip whose length is not known yet: its sizes say "to the end of the stream". */
const streamingWavHeader = (sampleRate: number) => {
  const header = pcmToWav(Buffer.alloc(0), sampleRate);
  header.writeUInt32LE(0xffffffff, 4);
  header.writeUInt32LE(0xffffffff, 40);
  return header;
};

/**
 * Google's Interactions API for speech (POST /{version}/interactions, @google/genai's
 * `interactions.create`): the same speech job as generateContent, the text and its
 * speech_metadata annotations as Gemini parts. Answered with an Interaction holding the audio
 * (WAV by default), or with `stream: true` as the Interactions events while the clip is spoken.
 */
export function interactionsSpeechDoor(catalog: Catalog): Door<'speech', InteractionsCall> {
  const retiring = (model: string) => retirementHeaders(catalog, model, (id) => `/v1beta/models/${id}`);
  // a live answer's own state: its interaction id, and whether its opening events went out
  const opened = new WeakMap<InteractionsCall, { id: string; started: boolean }>();
  const iso = (ms: number) => new Date(ms).toISOString();
  const created = (id: string, model: string, createdAt: number) =>
    interactionsEvent({
      event_type: 'interaction.created',
      interaction: { id, model, object: 'interaction', status: 'in_progress', created: iso(createdAt) },
    });
  const stepStart = interactionsEvent({ event_type: 'step.start', index: 0, step: { type: 'model_output' } });
  const delta = (audio: AudioContent) => interactionsEvent({ event_type: 'step.delta', index: 0, delta: audio });
  const closing = (id: string, data: SpeechJob, result: SpeechJobResult) => [
    interactionsEvent({ event_type: 'step.stop', index: 0 }),
    interactionsEvent({
      event_type: 'interaction.completed',
      interaction: {
        id,
        model: data.model,
        object: 'interaction',
        status: 'completed',
        created: iso(data.meta.createdAt),
        updated: iso(Date.now()),
        usage: interactionsUsage(result.usageMetadata),
      },
    }),
  ];
  const livePieces = (call: InteractionsCall) => call.stream && call.answer.delivery === 'inline';
  return {
    name: 'gemini.interactions',
    capability: SPEECH,
    dialect: 'google',
    http: {
      paths: GEMINI_VERSIONS.map((version) => `/${version}/interactions`),
      credentials: 'google',
      // a text, every character a JSON escape at worst
      maxStringBytes: () => 6 * MAX_PART_CHARS,
    },
    parse(sent) {
      const asked = parseOrThrow(interactionsSpeechFields, sent.body);
      const model = asked.model.replace(/^models\//, '');
      const spec = ownValue(catalog.speechModels, model);
      if (!spec) throw modelNotFound(/^\/(v1\w*)\//.exec(sent.path)?.[1] ?? 'v1beta', model, Object.keys(catalog.speechModels));
      const answer = audioFormatOf(asked);
      const output = ENCODED[answer.mimeType];
      return {
        model,
        request: geminiSpeechOf(asked, model, spec),
        ...(output ? { output } : {}),
        answer,
        stream: asked.stream === true,
        asked,
      };
    },
    hold: (call) => speechHold(call.model, ownValue(catalog.speechModels, call.model)!, call.request),
    fingerprint: (call) => call.asked,
    inspect: async (call) => call,
    prepare: async (call, _jobId, meta): Promise<SpeechJob> => ({
      meta,
      model: call.model,
      request: call.request,
      ...(call.output ? { output: call.output } : {}),
      ...(livePieces(call) ? { live: true as const } : {}),
    }),
    live: {
      wanted: livePieces,
      head(call, jobId) {
        opened.set(call, { id: jobId, started: false });
        return { contentType: 'text/event-stream', headers: retiring(call.model) };
      },
      piece(call, { type, bytes }) {
        const state = opened.get(call)!;
        const first = !state.started;
        state.started = true;
        // WAV and L16 pieces are the vendor's PCM: a WAV stream starts with a header of no length yet
        const pcm = !call.output;
        const sampleRate = sampleRateOf(type);
        const audio = pcm && first && call.answer.mimeType === 'audio/wav' ? Buffer.concat([streamingWavHeader(sampleRate), bytes]) : bytes;
        const event = delta({
          type: 'audio',
          mime_type: CONTENT_MIME[call.answer.mimeType],
          data: audio.toString('base64'),
          ...(pcm ? { sample_rate: sampleRate, channels: 1 } : {}),
        });
        return first ? created(state.id, call.model, Date.now()) + stepStart + event : event;
      },
    },
    async present(data, raw, { publicBase, store, call, streamed }) {
      const result = speechJobResultSchema.parse(raw);
      const id = parseFileId(result.file.fileId)!.jobId;
      // the audio went out as it was spoken: what is left is the end, and what it cost
      if (streamed?.size) return { kind: 'events', events: closing(id, data, result) };
      const audio = await audioContent(result, answerOf(data, call), store, publicBase);
      const headers = retiring(data.model);
      if (call?.stream) {
        const events = [created(id, data.model, data.meta.createdAt), stepStart, delta(audio), ...closing(id, data, result)];
        return { kind: 'events', events, headers };
      }
      const interaction = {
        id,
        model: data.model,
        status: 'completed' as const,
        created: iso(data.meta.createdAt),
        updated: iso(Date.now()),
        steps: [{ type: 'model_output' as const, content: [audio] }],
        usage: interactionsUsage(result.usageMetadata),
      };
      return { kind: 'json', body: interaction, headers };
    },
    async line(data, raw, linkBase) {
      const result = speechJobResultSchema.parse(raw);
      return {
        id: parseFileId(result.file.fileId)!.jobId,
        model: data.model,
        status: 'completed',
        steps: [
          {
            type: 'model_output',
            content: [{ type: 'audio', mime_type: result.file.contentType, uri: `${linkBase}/files/${result.file.fileId}` }],
          },
        ],
        usage: interactionsUsage(result.usageMetadata),
      };
    },
    openapi() {
      const operation = {
        tags: ['speech'],
        summary: "Synthesize speech (Google's Interactions API)",
        description:
          'The same speech job as generateContent, as @google/genai sends interactions.create: input as text contents (or user_input steps), style and speaker as speech_metadata annotations, the voices in generation_config.speech_config, response_format {type: "audio"} (WAV by default; l16, mp3, ogg_opus; delivery uri links the stored file). With stream: true, the Interactions events: interaction.created, step.start, a step.delta of audio per piece as the vendor speaks it, step.stop, interaction.completed with the usage.',
        security: SECURITY.google,
        requestParams: { header: callHeaders },
        requestBody: { required: true, content: { 'application/json': { schema: interactionsSpeechFields } } },
        responses: {
          '200': {
            description: 'The Interaction with the audio in its model_output step, or with stream: true its events',
            content: {
              'application/json': { schema: interactionSchema },
              'text/event-stream': { schema: z.string() },
            },
          },
          '202': pendingResponse,
          ...errorResponses('google', [...CALL_ERRORS, 404]),
        },
      };
      return Object.fromEntries(GEMINI_VERSIONS.map((version) => [`/${version}/interactions`, { post: operation }]));
    },
  };
}
