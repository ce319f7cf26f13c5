import { z } from 'zod';
import { CONTENT_TYPE } from '@relay/audio/formats';
import { price } from '../config/price.js';
import type { CapabilityDeclaration } from './declaration.js';

export const speechModelSchema = z.strictObject({
  upstream: z.string(),
  upstreamModel: z.string(),
  /** Micro-units per million input text tokens and per million output audio tokens. */
  price: z.strictObject({
    inputPerMillion: price(),
    outputPerMillion: price(),
  }),
  maxInputChars: z.number().int().positive().default(32_000),
  /** The model's output allowance in tokens: the reservation assumes all of it is used. */
  maxOutputTokens: z.number().int().positive().default(16_384),
  /** The input token limit the upstream states for the model; the model listings report it. */
  inputTokenLimit: z.number().int().positive().default(8_192),
  voices: z.array(z.string()).min(1),
  /**
   * OpenAI's voice names (what tools send by default to /v1/audio/speech) -> this model's voices.
   * Unset: the relay's table (packages/jobs/src/speech/openai-voices.ts), which names Gemini's voices.
   */
  openaiVoices: z.record(z.string(), z.string()).optional(),
  /**
   * The voice sent upstream when a request names none (a Gemini-dialect body with imageConfig
   * instead of speechConfig): Gemini 3.x TTS refuses a request without a voice. Default: the first of `voices`.
   */
  defaultVoice: z.string().optional(),
  /**
   * The model OpenAI's speech names mean (`tts-1`, `tts-1-hd`, `gpt-4o-mini-tts` and its dated
   * snapshots: what OpenAI's tools send by default). At most one is marked; none marked, the
   * catalog's first speech model.
   */
  openaiDefault: z.boolean().default(false),
  /**
   * The vendor's end of `upstreamModel` (a preview that closes): calls go to `successor` from the
   * vendor's first answer that it no longer serves the model (404), or from `sunset` (an ISO date,
   * midnight UTC, or a date-time) when one is set. The public id keeps answering; only the vendor
   * model behind it changes, and the worker logs it. A channel that maps the id to a vendor model
   * of its own is left as it is. Answers on the id say so (Deprecation, Sunset, and a Link to the
   * catalog's model on the successor, when there is one).
   */
  retirement: z
    .strictObject({
      sunset: z.union([z.iso.date(), z.iso.datetime({ offset: true })]).optional(),
      successor: z.string().min(1),
      /** When the vendor deprecated the model (its successor's GA): the date answers carry in `Deprecation`. */
      since: z.iso.date().optional(),
    })
    .optional(),
});

export type SpeechModel = z.output<typeof speechModelSchema>;

/** Speech synthesis, in Gemini's dialect or OpenAI's. */
export const SPEECH = {
  id: 'speech',
  kind: 'tts',
  jobName: 'synthesize',
  models: 'speechModels',
  model: speechModelSchema,
  check(models, issue) {
    const openaiDefaults = Object.entries(models).filter(([, model]) => model.openaiDefault);
    if (openaiDefaults.length > 1) {
      issue(
        [openaiDefaults[1]![0], 'openaiDefault'],
        `only one speech model may be OpenAI's default; ${openaiDefaults.map(([id]) => id).join(' and ')} both are`,
      );
    }
    for (const [id, model] of Object.entries(models)) {
      if (model.defaultVoice !== undefined && !model.voices.includes(model.defaultVoice)) {
        issue([id, 'defaultVoice'], `"${model.defaultVoice}" is none of the model's voices`);
      }
      for (const [name, voice] of Object.entries(model.openaiVoices ?? {})) {
        if (!model.voices.includes(voice)) issue([id, 'openaiVoices', name], `"${voice}" is none of the model's voices`);
      }
    }
  },
  noun: 'speech',
  /** Seconds of audio: five a turn. */
  quantum: 5,
  operation: 'speech',
  /** The formats @relay/audio encodes (OpenAI's door asks for one; Gemini's are stored as WAV). */
  files: CONTENT_TYPE,
} as const satisfies CapabilityDeclaration<'speech', typeof speechModelSchema>;
