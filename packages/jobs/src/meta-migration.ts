import type { QueueName } from './doors/capabilities.js';
import type { JobMeta } from './meta.js';
import type { Payload } from './queues.js';

/**
 * The doors jobs were answered through before a job named its own (records without a version):
 * each capability's first dialect. Capabilities added since have no such jobs.
 */
const DOORS_BEFORE_NAMING: Partial<Record<QueueName, string>> = {
  images: 'openai.images.generations',
  speech: 'gemini.generateContent',
};

/** The door a stored job is answered through: its own, or for a record from before versions, its capability's first. */
export function doorOfStored(queue: QueueName, meta: Pick<JobMeta, 'v' | 'door'>): string | undefined {
  if (meta.door !== undefined) return meta.door;
  return meta.v === undefined ? DOORS_BEFORE_NAMING[queue] : undefined;
}

/**
 * Where a job's public model was kept before its meta named it (version 2): its capability's
 * payload. Capabilities added since have no such jobs.
 */
const MODELS_BEFORE_META: { [Q in QueueName]?: (payload: Payload<Q>) => string } = {
  images: (payload) => payload.request.model,
  speech: (payload) => payload.model,
};

/** The public model a stored job asked for: its meta's, or for a record from before version 2, where its payload kept it. */
export function modelOfStored<Q extends QueueName>(queue: Q, payload: Payload<Q>): string {
  const before: ((payload: Payload<Q>) => string) | undefined = MODELS_BEFORE_META[queue];
  return payload.meta.model ?? before?.(payload) ?? 'unknown';
}
