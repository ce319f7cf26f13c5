import { z } from 'zod';
import { speechFormatSchema, speechSpeedSchema } from '@relay/audio/formats';
import { jobMetaSchema } from '../meta.js';
import { storedFileSchema } from '../images/job.js';
import { MAX_STYLE_CHARS, speechRequestFields } from './request.js';

/**
 * The speech job: the validated Gemini body and the public model it was addressed to. The body's
 * free-form imageConfig is never queued: it means nothing for speech and would be stored verbatim.
 */
export const speechJobSchema = z.strictObject({
  meta: jobMetaSchema,
  model: z.string(),
  request: speechRequestFields.extend({
    generationConfig: speechRequestFields.shape.generationConfig.omit({ imageConfig: true }),
  }),
  /** Asked through OpenAI's door: the audio is stored encoded, in this format and at this tempo (not as WAV). */
  output: z.strictObject({ format: speechFormatSchema, speed: speechSpeedSchema }).optional(),
  /**
   * How to speak, given apart from the words (OpenAI's `instructions`): the worker puts it where the
   * vendor model reads it, as Gemini's speechMetadata.style (3.8) or a direction before the text.
   */
  style: z.string().max(MAX_STYLE_CHARS).optional(),
  /** Its waiter streams the audio as it is made: the worker sends it in parts (the output's format, or the vendor's PCM) as it comes. */
  live: z.literal(true).optional(),
});
export type SpeechJob = z.output<typeof speechJobSchema>;

const tokenDetail = z.object({ modality: z.string(), tokenCount: z.number().int().min(0) });

/** Gemini's usageMetadata, as the upstream reported it (the billing basis). */
export const usageMetadataSchema = z.object({
  promptTokenCount: z.number().int().min(0).default(0),
  candidatesTokenCount: z.number().int().min(0).default(0),
  totalTokenCount: z.number().int().min(0).default(0),
  promptTokensDetails: z.array(tokenDetail).optional(),
  candidatesTokensDetails: z.array(tokenDetail).optional(),
});
export type UsageMetadata = z.output<typeof usageMetadataSchema>;

export const speechJobResultSchema = z.strictObject({
  /** The stored audio: a WAV (the Gemini answer's base64 PCM is read back from it), or the format the job's output asked. */
  file: storedFileSchema.omit({ size: true }),
  /** The upstream's PCM mime type, e.g. audio/L16;codec=pcm;rate=24000. */
  mimeType: z.string(),
  sampleRate: z.number().int().positive(),
  durationMs: z.number().int().min(0),
  finishReason: z.string(),
  usageMetadata: usageMetadataSchema,
  responseId: z.string(),
});
export type SpeechJobResult = z.output<typeof speechJobResultSchema>;

declare module '../queues.js' {
  /** The speech queue's jobs: this payload in, this result out. */
  interface QueueContract {
    speech: { payload: SpeechJob; result: SpeechJobResult };
  }
}
