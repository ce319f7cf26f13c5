import { z } from 'zod';
import type { ZodOpenApiResponsesObject } from 'zod-openapi';
import type { Dialect } from '../answers/error-bodies.js';
import { googleErrorSchema } from '../answers/google.js';
import { jobObjectSchema, openAIErrorSchema } from '../answers/openai.js';

/** Why an endpoint answers a status: one wording for the whole document. */
export const ERROR_REASONS: Readonly<Record<number, string>> = {
  400: 'A broken rule, named in param / a field violation',
  401: 'Missing, wrong or revoked key',
  402: 'Balance too low for the most the request can cost',
  404: 'Unknown model, job or file',
  409: 'Idempotency-Key reused with another body, the job was cancelled, or the batch is in no state for it',
  413: 'Body over the limit',
  415: 'Not application/json',
  429: 'This key is over its rate limit, or this address sent too many wrong keys (Retry-After)',
  502: 'The upstream failed after the relay retried',
  503: 'Redis, the store or queue capacity unavailable (Retry-After)',
};

/** What every generation call may answer besides its success. */
export const CALL_ERRORS = [400, 401, 402, 409, 413, 415, 429, 502, 503];

const errorSchemas = { openai: openAIErrorSchema, google: googleErrorSchema } as const;

export const errorResponses = (dialect: Dialect, statuses: number[]): ZodOpenApiResponsesObject =>
  Object.fromEntries(
    statuses.map((s) => [
      String(s),
      { description: ERROR_REASONS[s] ?? 'Error', content: { 'application/json': { schema: errorSchemas[dialect] } } },
    ]),
  );

/** The 202 of a call whose wait budget ran out. */
export const pendingResponse = {
  description: 'Still running when the wait budget ran out; Location names the job',
  content: { 'application/json': { schema: jobObjectSchema } },
};

/** The relay's extensions every generation call takes. */
export const callHeaders = z.object({
  Prefer: z.string().optional().meta({ description: '`wait=N` (seconds) or `respond-async`' }),
  'Idempotency-Key': z.string().max(255).optional().meta({ description: 'Same key + same body = same job, charged once' }),
});

/** How each dialect's clients send their key. */
export const SECURITY: Readonly<Record<Dialect, Array<Record<string, string[]>>>> = {
  openai: [{ relayKey: [] }],
  google: [{ googApiKey: [] }, { queryKey: [] }, { relayKey: [] }],
};
