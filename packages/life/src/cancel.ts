import type { Redis } from 'ioredis';
import { z } from 'zod';
import { AppError, encodeFailure } from '@relay/core';
import { removeIfWaiting, type QueueName, type MetaJob } from '@relay/jobs';
import type { LifeDeps } from './deps.js';
import { notifyWaiters } from './notices.js';

/** Why a worker refuses a job: its client left before its upstream call began; nothing was charged, nothing is retried. */
export const cancelledError = () =>
  new AppError('cancelled', 'the job was cancelled before it started; nothing was charged', { retryable: false });

/**
 * Why a begun job makes no further upstream call: its owner stopped it. What it delivered before
 * is kept and charged; a job that had delivered nothing ends with this, its money all back.
 */
export const stoppedError = () =>
  new AppError(
    'cancelled',
    'the job was cancelled by its owner while it ran: nothing more was asked upstream, and only what it delivered is charged',
    {
      retryable: false,
    },
  );

/** Whether an error is a stop (or cancel) of the job, rather than a failure of its call. */
export const isCancelled = (error: unknown) => error instanceof AppError && error.code === 'cancelled';

/** Why a job its owner did not leave was ended before it began: cancelled by id, or its Cancel-After deadline passed. */
export type CancelReason = 'owner' | 'deadline';

export const cancelledByError = (reason: CancelReason) =>
  new AppError(
    'cancelled',
    reason === 'deadline'
      ? 'the job had not begun by its Cancel-After deadline: it was cancelled, and nothing was charged'
      : 'the job was cancelled by its owner before it began; nothing was charged',
    { retryable: false },
  );

/**
 * What is left of a job cancelled while it waited (the queue drops it): who owned it, the door
 * it came by and its error, kept as long as a finished job is, so a later look, its events and a
 * replay answer `cancelled` rather than "not found".
 */
export const cancelledKey = (prefix: string, jobId: string) => `${prefix}:job:${jobId}:cancelled`;
const cancelledSchema = z.object({
  reason: z.enum(['owner', 'deadline']),
  accountId: z.string(),
  door: z.string().optional(),
  failedReason: z.string(),
});
export type CancelledJob = z.output<typeof cancelledSchema>;

export async function readCancelled(redis: Redis, prefix: string, jobId: string): Promise<CancelledJob | undefined> {
  const raw = await redis.get(cancelledKey(prefix, jobId));
  const parsed = raw === null ? undefined : cancelledSchema.safeParse(JSON.parse(raw));
  return parsed?.success ? parsed.data : undefined;
}

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
  async function drop(queue: QueueName, job: MetaJob | string) {
    const jobId = typeof job === 'string' ? job : job.id!;
    await leaveSchedule(queue, jobId);
    const held = typeof job === 'string' ? await deps.queues[queue].getJob(jobId) : job;
    if (held) await removeIfWaiting(held);
  }

  async function cancel(queue: QueueName, job: MetaJob | string, options: CancelOptions = {}): Promise<boolean> {
    const jobId = typeof job === 'string' ? job : job.id!;
    if (!(await deps.billing.cancel(jobId)).applied) return false;
    await options.beforeRemoval?.();
    await drop(queue, job);
    if (options.tellWaiters) await notifyWaiters(deps.redis, deps.prefix, { type: 'removed', jobId, data: '' }, undefined);
    return true;
  }

  /**
   * Ends a job that has not begun, for its owner or its deadline: its money back as `cancel` does,
   * its end kept (readCancelled) and told to whoever waits for it, as a failure in its dialect.
   * False when its upstream call had begun: it runs to its end, charged for what it delivers.
   */
  async function cancelFor(queue: QueueName, job: MetaJob, reason: CancelReason, keepSeconds: number): Promise<boolean> {
    if (!(await deps.billing.cancel(job.id!)).applied) return false;
    const { meta } = job.data;
    const failedReason = encodeFailure(cancelledByError(reason));
    const record: CancelledJob = { reason, accountId: meta.accountId, ...(meta.door ? { door: meta.door } : {}), failedReason };
    await deps.redis.set(cancelledKey(deps.prefix, job.id!), JSON.stringify(record), 'EX', keepSeconds);
    await drop(queue, job);
    await notifyWaiters(deps.redis, deps.prefix, { type: 'failed', jobId: job.id!, data: failedReason }, meta.inbox);
    return true;
  }

  /**
   * Stops a job whose upstream call began: no further call of it begins (a retry, a generation
   * not yet asked), what is in flight runs to its end and is charged as delivered. A job put off
   * (a retry's backoff, a cooling channel) is brought forward so it ends now. False when the job
   * is not running (not begun: cancel it; ended: nothing to stop).
   */
  async function stop(job: MetaJob): Promise<boolean> {
    if (!(await deps.billing.stop(job.id!))) return false;
    // a delayed job would otherwise end only when its wait is over (up to a quota's probe time)
    await job.promote().catch(() => undefined);
    return true;
  }

  return { cancel, cancelFor, drop, stop };
}
