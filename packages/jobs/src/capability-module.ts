import type { Catalog } from '@relay/core';
import type { z } from 'zod';
import type { QueueName } from './doors/capabilities.js';
import type { DoorOf } from './doors/door.js';
import type { Result } from './queues.js';

/** What a finished job delivered, for a batch's progress figures (images, seconds of audio). */
export interface Delivered {
  images?: number;
  audioMs?: number;
}

/**
 * What this package adds to a capability @relay/core declares: its ways in and what its jobs give
 * back. Each capability's folder exports one (its index.ts, also `@relay/jobs/<folder>`); the
 * table of them (capability-modules.ts) is what the api mounts, batches accept and lookups answer
 * through. Its job's payload and result types are its own too, added to QueueContract (queues.ts)
 * by its job.ts.
 */
export interface CapabilityModule<Q extends QueueName> {
  /** Its jobs' result as Redis gives it back, checked before it is read. */
  result: z.ZodType<Result<Q>>;
  /** Its doors, each one dialect's way in, made for a catalog; the api mounts them in this order. */
  doors: ReadonlyArray<(catalog: Catalog) => DoorOf<Q>>;
  /** What a result delivered, for a batch's progress figures. */
  delivered(result: Result<Q>): Delivered;
}
