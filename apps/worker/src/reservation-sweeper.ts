import type { Queue } from 'bullmq';
import type { Billing } from '@relay/billing';
import { every, type Logger } from '@relay/core';
import { capabilityOfJobId, type QueueName } from '@relay/jobs';

export interface SweepSettings {
  /** How long a reservation may stay open without a job before it is given back. */
  graceMs: number;
  /** How often each worker looks. */
  everyMs: number;
}

/**
 * Money held for a job that never ran: the api reserves, then queues; if it dies in between, or
 * Redis drops the queueing and then the release that should undo it, the reservation stays open
 * with no job behind it. So does one whose job failed while its release could not be written.
 * Each worker looks now and then for reservations open longer than the grace period and gives
 * back those whose job is missing or failed (a release is idempotent: two workers may both try).
 */
export function startReservationSweeper(
  billing: Billing,
  queues: Record<QueueName, Queue>,
  settings: SweepSettings,
  log: Logger,
  onReleased: () => void,
) {
  const queueOf = (jobId: string) => {
    const capability = capabilityOfJobId(jobId);
    return capability && queues[capability.id];
  };
  const sweep = async () => {
    for (const jobId of await billing.openLongerThan(settings.graceMs, 100)) {
      const state = await queueOf(jobId)?.getJobState(jobId);
      if (state !== undefined && state !== 'unknown' && state !== 'failed') continue;
      if ((await billing.release(jobId)).applied) {
        onReleased();
        log.warn({ jobId, state }, 'released a reservation its job never used');
      }
    }
  };
  const stop = every(settings.everyMs, sweep, (error) => log.warn({ err: error.message }, 'reservation sweep failed; trying again later'));
  return { stop };
}
