import type { QueueName } from '../queues.js';
import type { Capability } from './door.js';

/** Image generation, edits included: one queue, one processor, whatever door the request used. */
export const IMAGES: Capability<'images'> = { id: 'images', kind: 'img', jobName: 'generate', traffic: 'images' };

/** Speech synthesis, in Gemini's dialect or OpenAI's. */
export const SPEECH: Capability<'speech'> = { id: 'speech', kind: 'tts', jobName: 'synthesize', traffic: 'speech' };

/** Every capability, by queue: a queue without one is a compile error. */
export const CAPABILITIES: { readonly [Q in QueueName]: Capability<Q> } = { images: IMAGES, speech: SPEECH };

/** The capability a job id belongs to, by its prefix. */
export const capabilityOfJobId = (jobId: string): Capability | undefined =>
  Object.values(CAPABILITIES).find((c) => jobId.startsWith(`${c.kind}_`));
