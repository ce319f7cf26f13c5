import type { Job } from 'bullmq';
import { decodeFailure, type AppError } from '@relay/core';
import type { QueueHandle } from './queues.js';

export type Outcome<R> =
  | { state: 'completed'; job: Job; result: R }
  | { state: 'failed'; job: Job; error: AppError }
  | { state: 'pending'; job: Job };

/**
 * Waits up to `budgetMs` for a job, or until `stop` fires (api shutdown). A rejection from
 * waitUntilFinished means the job failed or the wait ended; the job's own state tells which.
 */
export async function waitForJob<R>(handle: QueueHandle, job: Job, budgetMs: number, stop?: AbortSignal): Promise<Outcome<R>> {
  if (budgetMs <= 0 || stop?.aborted) return settledOutcome<R>(handle, job.id!);
  let onStop = () => {};
  const stopped = new Promise<void>((resolve) => (onStop = resolve));
  stop?.addEventListener('abort', onStop, { once: true });
  try {
    const result = await Promise.race([job.waitUntilFinished(handle.events, budgetMs) as Promise<R>, stopped]);
    if (stop?.aborted) return settledOutcome<R>(handle, job.id!);
    return { state: 'completed', job, result: result as R };
  } catch {
    return settledOutcome<R>(handle, job.id!);
  } finally {
    // the signal lives as long as the process: each wait must take its listener back
    stop?.removeEventListener('abort', onStop);
  }
}

/**
 * The outcome as Redis has it now, without waiting. The state is read first: a job read
 * before it finished would carry no return value even if its state then says completed.
 */
export async function settledOutcome<R>(handle: QueueHandle, jobId: string): Promise<Outcome<R>> {
  const state = await handle.queue.getJobState(jobId);
  const job = await handle.queue.getJob(jobId);
  if (!job) throw new Error(`job ${jobId} vanished`);
  if (state === 'completed') return { state, job, result: job.returnvalue as R };
  if (state === 'failed') return { state, job, error: decodeFailure(job.failedReason) };
  return { state: 'pending', job };
}

/** Drops a cancelled job still in the queue; one a worker holds is refused by that worker. */
export async function removeIfWaiting(job: Job): Promise<void> {
  const state = await job.getState();
  if (!['waiting', 'wait', 'prioritized', 'delayed'].includes(state)) return;
  await job.remove().catch(() => undefined); // taken by a worker meanwhile: it will see the cancel
}
