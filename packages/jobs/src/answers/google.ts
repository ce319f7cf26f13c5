import { z } from 'zod';
import { usageMetadataSchema } from '../speech/job.js';

/** Gemini's GenerateContentResponse, as far as speech fills it. */
export const generateContentResponseSchema = z
  .object({
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
  })
  .meta({ id: 'GenerateContentResponse' });
export type GenerateContentResponse = z.input<typeof generateContentResponseSchema>;

export const googleErrorSchema = z
  .object({
    error: z.object({
      code: z.number().int(),
      message: z.string(),
      status: z.string(),
      details: z.array(z.record(z.string(), z.unknown())).optional(),
    }),
  })
  .meta({ id: 'GoogleError' });
export type GoogleError = z.input<typeof googleErrorSchema>;

/** Gemini's Model resource (GET /{version}/models/{model}). */
export const geminiModelSchema = z
  .object({
    name: z.string().describe('models/{id}'),
    baseModelId: z.string(),
    version: z.string(),
    displayName: z.string(),
    description: z.string(),
    inputTokenLimit: z.number().int(),
    outputTokenLimit: z.number().int(),
    supportedGenerationMethods: z.array(z.string()),
  })
  .meta({ id: 'GeminiModel' });
export type GeminiModel = z.input<typeof geminiModelSchema>;

export const geminiModelListSchema = z
  .object({
    models: z.array(geminiModelSchema),
    nextPageToken: z.string().optional().describe('Pass as pageToken for the next page; absent on the last'),
  })
  .meta({ id: 'GeminiModelList' });
export type GeminiModelList = z.input<typeof geminiModelListSchema>;

/** The answer of :countTokens. */
export const countTokensResponseSchema = z
  .object({
    totalTokens: z
      .number()
      .int()
      .describe('Gemini tokens, estimated (the Relay-Token-Count header says so): about 4 Latin characters or 1 other character each'),
    promptTokensDetails: z.array(z.object({ modality: z.literal('TEXT'), tokenCount: z.number().int() })),
  })
  .meta({ id: 'CountTokensResponse' });
export type CountTokensResponse = z.input<typeof countTokensResponseSchema>;
