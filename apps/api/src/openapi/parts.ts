import { ref, type SchemaName } from './components.js';

/** Pieces every path of the document is made of. */
export const json = (name: SchemaName) => ({ 'application/json': { schema: ref(name) } });
export const ok = (description: string, name: SchemaName) => ({ description, content: json(name) });

const REASONS: Record<number, string> = {
  400: 'A broken rule, named in param / a field violation',
  401: 'Missing, wrong or revoked key',
  402: 'Balance too low for the most the request can cost',
  404: 'Unknown model, job or file',
  409: 'Idempotency-Key reused with another body, the job was cancelled, or the batch is in no state for it',
  413: 'Body over the limit',
  415: 'Not application/json',
  429: 'This key is over its rate limit (Retry-After)',
  502: 'The upstream failed after the relay retried',
  503: 'Redis, the store or queue capacity unavailable (Retry-After)',
};
export const errors = (name: 'OpenAIError' | 'GoogleError', statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [String(s), { description: REASONS[s]!, content: json(name) }]));

export const pending = { description: 'Still running when the wait budget ran out; Location names the job', content: json('JobObject') };
export const jobParams = [{ $ref: '#/components/parameters/Prefer' }, { $ref: '#/components/parameters/IdempotencyKey' }];
export const GENERATION_ERRORS = [400, 401, 402, 409, 413, 415, 429, 502, 503];
export const admin = [{ adminToken: [] }];
export const pathId = (name: string) => ({ name, in: 'path', required: true, schema: { type: 'string' } });

/** How Google's SDKs and docs send a key, then the relay's own Bearer. */
export const googleSecurity = [{ googApiKey: [] }, { queryKey: [] }, { relayKey: [] }];
