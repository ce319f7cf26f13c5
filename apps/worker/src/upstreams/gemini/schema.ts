import { z } from 'zod';
import { usageMetadataSchema } from '@relay/jobs';

export const geminiResponseSchema = z.object({
  candidates: z
    .array(
      z.object({
        content: z
          .object({
            parts: z.array(z.object({ inlineData: z.object({ mimeType: z.string(), data: z.string() }).optional() })).default([]),
          })
          .optional(),
        finishReason: z.string().optional(),
      }),
    )
    .default([]),
  promptFeedback: z.object({ blockReason: z.string().optional() }).optional(),
  usageMetadata: usageMetadataSchema.default({ promptTokenCount: 0, candidatesTokenCount: 0, totalTokenCount: 0 }),
  modelVersion: z.string().optional(),
  responseId: z.string().optional(),
});

export const geminiErrorSchema = z.object({
  error: z.object({
    code: z.number().optional(),
    message: z.string().default(''),
    status: z.string().optional(),
    details: z.array(z.record(z.string(), z.unknown())).optional(),
  }),
});
export type GeminiResponse = z.output<typeof geminiResponseSchema>;
