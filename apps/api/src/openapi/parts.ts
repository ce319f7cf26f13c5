import { ERROR_REASONS } from '@relay/jobs';
import { ref, type SchemaName } from './components.js';

/** Pieces every path of the document is made of. */
export const json = (name: SchemaName) => ({ 'application/json': { schema: ref(name) } });
export const ok = (description: string, name: SchemaName) => ({ description, content: json(name) });

export const errors = (name: 'OpenAIError' | 'GoogleError', statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [String(s), { description: ERROR_REASONS[s]!, content: json(name) }]));

export const admin = [{ adminToken: [] }];
export const pathId = (name: string) => ({ name, in: 'path', required: true, schema: { type: 'string' } });

/** How Google's SDKs and docs send a key, then the relay's own Bearer. */
export const googleSecurity = [{ googApiKey: [] }, { queryKey: [] }, { relayKey: [] }];
