import type { Redis } from 'ioredis';
import { AppError, decodeFailure } from '@relay/core';
import { capabilityOfJobId, isJobId, type AnyDoor, type Capability, type Doors } from '@relay/jobs';
import { readCancelled } from '@relay/life';
import type { QueueHandle, Queues } from './queues.js';
import { settledOutcome, type Outcome } from './run-job.js';

/** A job as its owner looks it up: its queue, the door it came by, and how it stands. */
export interface OwnedJob {
  capability: Capability;
  handle: QueueHandle;
  door: AnyDoor;
  /** Its outcome; a job cancelled while it waited (the queue dropped it) reads as failed `cancelled`, with no job. */
  outcome: Exclude<Outcome<unknown>, { state: 'gone' }> | { state: 'cancelled'; error: AppError };
}

/**
 * The job `id` of this account: jobs of other accounts, unknown ids and jobs long gone are all
 * the same 404, so nothing tells whether another account's job exists.
 */
export async function ownedJob(
  id: string,
  accountId: string,
  deps: { queues: Queues; doors: Doors; redis: Redis; prefix: string },
): Promise<OwnedJob> {
  const capability = isJobId(id) ? capabilityOfJobId(id) : undefined;
  const handle = capability && deps.queues[capability.id];
  const outcome = handle && (await settledOutcome(handle, id));
  if (!capability || !handle || !outcome) throw new AppError('not_found', `no job ${id}`);
  if (outcome.state === 'gone') {
    const cancelled = await readCancelled(deps.redis, deps.prefix, id);
    if (!cancelled || cancelled.accountId !== accountId) throw new AppError('not_found', `no job ${id}`);
    const door = deps.doors.ofJob(capability.id, cancelled);
    return { capability, handle, door, outcome: { state: 'cancelled', error: decodeFailure(cancelled.failedReason) } };
  }
  const { meta } = outcome.job.data;
  if (meta.accountId !== accountId) throw new AppError('not_found', `no job ${id}`);
  return { capability, handle, door: deps.doors.ofJob(capability.id, meta), outcome };
}
