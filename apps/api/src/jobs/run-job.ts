import type { Job } from 'bullmq';
import { decodeFailure, type AppError } from '@relay/core';
import type { QueueHandle } from './queues.js';

export type Outcome<R> =
  | { state: 'completed'; job: Job; result: R }
  | { state: 'failed'; job: Job; error: AppError }
  | { state: 'pending'; job: Job }
  /** Not in the queue (any more): cancelled before it started, or removed. */
  | { state: 'gone'; jobId: string };

/**
 * Waits up to `budgetMs` for a job to finish, or until its client leaves (`client` aborts) or
 * the api stops waiting (shutdown); then answers with the job's outcome as Redis has it.
 */
export async function waitForJob<R>(handle: QueueHandle, jobId: string, budgetMs: number, client?: AbortSignal): Promise<Outcome<R>> {
  const deadline = Date.now() + budgetMs;
  for (;;) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) return settledOutcome<R>(handle, jobId);
    // registered before the state is read: an event between the two still ends the wait
    const wait = handle.waits.register(jobId, remaining, client);
    let outcome: Outcome<R>;
    try {
      outcome = await settledOutcome<R>(handle, jobId);
    } catch (error) {
      wait.cancel();
      throw error;
    }
    if (outcome.state !== 'pending') {
      wait.cancel();
      return outcome;
    }
    const end = await wait.ended;
    if (end !== 'event') return settledOutcome<R>(handle, jobId);
  }
}

/**
 * The outcome as Redis has it now, without waiting. The state is read first: a job read
 * before it finished would carry no return value even if its state then says completed.
 */
export async function settledOutcome<R>(handle: QueueHandle, jobId: string): Promise<Outcome<R>> {
  const state = await handle.queue.getJobState(jobId);
  const job = state === 'unknown' ? undefined : await handle.queue.getJob(jobId);
  if (!job) return { state: 'gone', jobId };
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
