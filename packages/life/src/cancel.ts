import type { Job } from 'bullmq';
import { AppError } from '@relay/core';
import { removeIfWaiting, type QueueName } from '@relay/jobs';
import type { LifeDeps } from './deps.js';
import { notifyWaiters } from './notices.js';

/** Why a worker refuses a job: its client left before its upstream call began; nothing was charged, nothing is retried. */
export const cancelledError = () =>
  new AppError('cancelled', 'the job was cancelled before it started; nothing was charged', { retryable: false });

export interface CancelOptions {
  /** Runs once the money is given back, before the job is dropped (the api frees the Idempotency-Key there). */
  beforeRemoval?: () => Promise<void>;
  /** Other api processes may wait for it (an Idempotency-Key replay): they are told it is gone. */
  tellWaiters?: boolean;
}

/**
 * A job whose upstream call has not begun, taken back: its whole reservation returned (decided
 * atomically with the worker's `begin`, so a job is either cancelled or run, never both), its
 * place in the schedule given up and the job dropped from the queue (a worker that holds it
 * already refuses it). False when its call had begun: it runs to its end and is charged.
 */
export function createCancel(deps: LifeDeps, leaveSchedule: (queue: QueueName, jobId: string) => Promise<void>) {
  /** Out of the schedule and the queue, whatever its money: a job (or batch line) that will not run. */
  async function drop(queue: QueueName, job: Job | string) {
    const jobId = typeof job === 'string' ? job : job.id!;
    await leaveSchedule(queue, jobId);
    const held = typeof job === 'string' ? await deps.queues[queue].getJob(jobId) : job;
    if (held) await removeIfWaiting(held);
  }

  async function cancel(queue: QueueName, job: Job | string, options: CancelOptions = {}): Promise<boolean> {
    const jobId = typeof job === 'string' ? job : job.id!;
    if (!(await deps.billing.cancel(jobId)).applied) return false;
    await options.beforeRemoval?.();
    await drop(queue, job);
    if (options.tellWaiters) await notifyWaiters(deps.redis, deps.prefix, { type: 'removed', jobId, data: '' }, undefined);
    return true;
  }

  return { cancel, drop };
}
