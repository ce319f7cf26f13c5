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
 * Gemini's tokens, estimated as its docs put them: about four characters of Latin-script text to
 * a token, and about one token to each character of other scripts (CJK, Devanagari, ...). The
 * relay calls no upstream for a count (it is a free read at the front door), so this is labelled
 * an estimate (the `Relay-Token-Count` header); what the caller pays is the upstream's own
 * `promptTokenCount`, and what it reserves is one token per character, never less than that.
 */
export function estimateGeminiTokens(text: string): number {
  let latin = 0;
  let other = 0;
  for (const char of text) {
    if (/[\p{Script=Latin}\p{Script=Common}\p{Script=Inherited}]/u.test(char)) latin += 1;
    else other += 1;
  }
  return Math.ceil(latin / 4) + other;
}

/** The estimate and how it was made, for the `Relay-Token-Count` header. */
export const TOKEN_COUNT_LABEL = 'estimate; basis="4 Latin characters or 1 other character per token"';

export function countTokens(body: z.output<typeof countTokensBody>): CountTokensResponse {
  const contents = body.contents ?? body.generateContentRequest?.contents ?? [];
  const tokens = estimateGeminiTokens(speechText({ contents }));
  return { totalTokens: tokens, promptTokensDetails: [{ modality: 'TEXT', tokenCount: tokens }] };
}
