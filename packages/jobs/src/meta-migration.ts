import type { QueueName } from './doors/capabilities.js';
import type { JobMeta } from './meta.js';

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
