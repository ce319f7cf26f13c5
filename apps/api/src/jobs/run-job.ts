import type { Job } from 'bullmq';
import { decodeFailure, type AppError } from '@relay/core';
import type { QueueHandle } from './queues.js';

export type Outcome<R> =
  | { state: 'completed'; job: Job; result: R }
  | { state: 'failed'; job: Job; error: AppError }
  | { state: 'pending'; job: Job };

/**
 * Waits up to `budgetMs` for a job. A rejection from waitUntilFinished means either the job
 * failed or the wait ended (budget, shutdown); the job's own state tells which.
 */
export async function waitForJob<R>(handle: QueueHandle, job: Job, budgetMs: number): Promise<Outcome<R>> {
  try {
    const result = (await job.waitUntilFinished(handle.events, budgetMs)) as R;
    return { state: 'completed', job, result };
  } catch {
    return settledOutcome<R>(handle, job.id!);
  }
}

/** The outcome as Redis has it now, without waiting. */
export async function settledOutcome<R>(handle: QueueHandle, jobId: string): Promise<Outcome<R>> {
  const job = await handle.queue.getJob(jobId);
  if (!job) throw new Error(`job ${jobId} vanished`);
  const state = await job.getState();
  if (state === 'completed') return { state, job, result: job.returnvalue as R };
  if (state === 'failed') return { state, job, error: decodeFailure(job.failedReason) };
  return { state: 'pending', job };
}
