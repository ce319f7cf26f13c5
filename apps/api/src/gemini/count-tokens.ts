import { z } from 'zod';
import { speechRequestFields, speechText } from '@relay/jobs';
import type { CountTokensResponse } from '@relay/jobs';

/** The body of :countTokens: `contents`, or a whole `generateContentRequest`, as Google takes. */
export const countTokensBody = z
  .strictObject({
    contents: speechRequestFields.shape.contents.optional(),
    // what a generateContent call would send; a count needs no generationConfig
    generateContentRequest: speechRequestFields.partial({ generationConfig: true }).optional(),
  })
  .refine((body) => (body.contents === undefined) !== (body.generateContentRequest === undefined), {
    message: 'send either contents or generateContentRequest',
    path: ['contents'],
  })
  .meta({ id: 'CountTokensRequest' });

/**
 * Counts as the relay reserves: every character of the text one token (text never takes more
 * tokens than characters). So this is the input a synthesis of the same text reserves, and
 * never less than the upstream's own promptTokenCount, which is what the charge uses.
 */
export function countTokens(body: z.output<typeof countTokensBody>): CountTokensResponse {
  const contents = body.contents ?? body.generateContentRequest?.contents ?? [];
  const tokens = speechText({ contents }).length;
  return { totalTokens: tokens, promptTokensDetails: [{ modality: 'TEXT', tokenCount: tokens }] };
}
