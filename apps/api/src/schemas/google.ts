import { z } from 'zod';
import { usageMetadataSchema } from '@relay/jobs';

/** Gemini's GenerateContentResponse, as far as speech fills it. */
export const generateContentResponseSchema = z.object({
  candidates: z.array(
    z.object({
      content: z.object({
        role: z.literal('model'),
        parts: z.array(z.object({ inlineData: z.object({ mimeType: z.string(), data: z.string().describe('base64 PCM') }) })),
      }),
      finishReason: z.string(),
      index: z.number().int(),
    }),
  ),
  usageMetadata: usageMetadataSchema,
  modelVersion: z.string(),
  responseId: z.string(),
});
export type GenerateContentResponse = z.input<typeof generateContentResponseSchema>;

export const googleErrorSchema = z.object({
  error: z.object({
    code: z.number().int(),
    message: z.string(),
    status: z.string(),
    details: z.array(z.record(z.string(), z.unknown())).optional(),
  }),
});
export type GoogleError = z.input<typeof googleErrorSchema>;
