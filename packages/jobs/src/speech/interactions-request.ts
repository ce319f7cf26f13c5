import { z } from 'zod';
import { MAX_PART_CHARS, MAX_STYLE_CHARS } from './request.js';

/**
 * The body of Google's POST /{version}/interactions for speech, field names as @google/genai
 * 3.1's `interactions.create` sends them (its CreateModelInteraction, TextContent,
 * SpeechAnnotation, UserInputStep, GenerationConfig, SpeechConfig / SpeakerConfig and
 * AudioResponseFormat types). Only what speech means is taken; anything else is a 400.
 */
const label = (what: string) => z.string({ error: `${what} must be a string` }).max(100, `${what} must be at most 100 characters`);

/** SpeechAnnotation: who says the text (a speaker of speech_config) and how, over a byte range of it (the whole text by default). */
const speechAnnotation = z.strictObject(
  {
    type: z.literal('speech_metadata', { error: 'an annotation of the input must have type "speech_metadata"' }),
    speaker: label('speaker').min(1, 'speaker must not be empty').optional(),
    style: z
      .string({ error: 'style must be a string' })
      .max(MAX_STYLE_CHARS, `style may be at most ${MAX_STYLE_CHARS} characters`)
      .optional(),
    start_index: z.number({ error: 'start_index must be a number' }).int('start_index must be an integer').min(0).optional(),
    end_index: z.number({ error: 'end_index must be a number' }).int('end_index must be an integer').min(0).optional(),
  },
  { error: 'an annotation must be an object with type "speech_metadata"' },
);

const textContent = z.strictObject(
  {
    type: z.literal('text', { error: 'input content must be text: {type: "text", text}' }),
    text: z.string({ error: 'text must be a string' }).max(MAX_PART_CHARS, `a text may be at most ${MAX_PART_CHARS} characters`),
    annotations: z.array(speechAnnotation, { error: 'annotations must be an array' }).max(1_000, 'at most 1000 annotations').optional(),
  },
  { error: 'input content must be an object: {type: "text", text}' },
);
export type InteractionsText = z.output<typeof textContent>;

/** A turn of the input (Google's UserInputStep): text contents only, since speech reads text. */
const userInputStep = z.strictObject({
  type: z.literal('user_input'),
  content: z.array(textContent, { error: 'content must be an array' }).max(1_000, 'at most 1000 contents per step').optional(),
});

const inputEntry = z.discriminatedUnion('type', [textContent, userInputStep], {
  error: 'each entry of input must be {type: "text", text} or a {type: "user_input", content} step',
});

/** One voice: Google's SpeechConfig; a speaker names who it speaks for. */
const voiceEntry = z.strictObject(
  {
    voice: label('voice').optional(),
    speaker: label('speaker').optional(),
    language: z.string({ error: 'language must be a string' }).max(35, 'language must be a BCP-47 code such as en-US').optional(),
  },
  { error: 'a speech config must be an object: {voice, speaker, language}' },
);
export type InteractionsVoice = z.output<typeof voiceEntry>;

export const AUDIO_MIME_TYPES = ['audio/wav', 'audio/l16', 'audio/mp3', 'audio/ogg_opus'] as const;
export type InteractionsAudioType = (typeof AUDIO_MIME_TYPES)[number];
/** The rate every speech model speaks at. */
const SAMPLE_RATE = 24_000;

const audioFormat = z.strictObject(
  {
    type: z.literal('audio', { error: 'response_format.type must be "audio" for a speech model' }),
    mime_type: z
      .enum(AUDIO_MIME_TYPES, { error: `mime_type must be one of ${AUDIO_MIME_TYPES.join(', ')}` })
      .optional()
      .meta({ default: 'audio/wav' }),
    delivery: z
      .enum(['inline', 'uri'], { error: 'delivery must be "inline" or "uri"' })
      .optional()
      .describe('uri: the audio as a link to the stored file instead of base64'),
    sample_rate: z
      .literal(SAMPLE_RATE, { error: `sample_rate: the speech is made at ${SAMPLE_RATE} Hz, the only rate offered` })
      .optional(),
    bit_rate: z
      .never({ error: 'bit_rate is not offered: compressed formats are encoded at their fixed rate' })
      .optional()
      .describe('Not offered'),
  },
  { error: 'response_format must be {type: "audio"}' },
);
export type InteractionsAudioFormat = z.output<typeof audioFormat>;

export const interactionsSpeechFields = z.strictObject({
  model: z.string({ error: 'model is required and must be a string' }).max(200, 'model must be at most 200 characters'),
  input: z.union(
    [
      z.string().max(MAX_PART_CHARS, `input may be at most ${MAX_PART_CHARS} characters`),
      textContent,
      z.array(inputEntry).max(1_000, 'at most 1000 entries of input'),
    ],
    { error: 'input is required: a string, a text content, a list of them, or a list of user_input steps' },
  ),
  generation_config: z
    .strictObject(
      {
        speech_config: z
          .union(
            [z.strictObject({ speakers: z.array(voiceEntry).max(10, 'at most 10 speakers') }), z.array(voiceEntry).max(10), voiceEntry],
            {
              error: 'speech_config must be {speakers: [...]}, a list of {voice, speaker, language}, or one of them',
            },
          )
          .optional(),
        temperature: z.number({ error: 'temperature must be a number' }).min(0).max(2).optional(),
        top_p: z.number({ error: 'top_p must be a number' }).min(0).max(1).optional(),
        seed: z.number({ error: 'seed must be a number' }).int('seed must be an integer').optional(),
      },
      { error: 'generation_config must be an object' },
    )
    .optional(),
  response_format: z
    .union([audioFormat, z.array(audioFormat).length(1, 'response_format takes one audio format')], {
      error: 'response_format must be {type: "audio"}',
    })
    .optional(),
  /** Deprecated by Google in favour of response_format; a speech model answers audio only. */
  response_modalities: z
    .array(z.literal('audio', { error: 'response_modalities must be ["audio"] for a speech model' }))
    .length(1, 'response_modalities must be ["audio"] for a speech model')
    .optional(),
  stream: z.boolean({ error: 'stream must be a boolean' }).optional(),
  /** Accepted for the SDK's sake; the relay keeps no interactions to continue (its jobs are looked up at /v1/jobs). */
  store: z.boolean({ error: 'store must be a boolean' }).optional(),
});
export type InteractionsSpeechRequest = z.output<typeof interactionsSpeechFields>;

/** The one audio format asked, or the default (inline WAV). */
export function audioFormatOf(request: Pick<InteractionsSpeechRequest, 'response_format'>) {
  const format = Array.isArray(request.response_format) ? request.response_format[0] : request.response_format;
  return { mimeType: format?.mime_type ?? 'audio/wav', delivery: format?.delivery ?? 'inline' } as const;
}
