import { decodeFailure, type AppError } from '@relay/core';
import { isUnderWay, type RelayJob } from '@relay/jobs';
import type { Departure } from './job-waits.js';
import type { QueueHandle } from './queues.js';

export type Outcome<R> =
  | { state: 'completed'; job: RelayJob; result: R }
  | { state: 'failed'; job: RelayJob; error: AppError }
  | { state: 'pending'; job: RelayJob }
  /** Not in the queue (any more): cancelled before it started, or removed. */
  | { state: 'gone'; jobId: string };

/**
 * Waits up to `budgetMs` for a job to finish, or until its client leaves (`client` aborts) or
 * the api stops waiting (shutdown); then answers with the job's outcome as Redis has it. Every
 * `recheckMs` it looks at the job's state itself: a notice lost to a worker that died between
 * finishing the job and telling (or to a Redis restart) costs a look's delay, not the budget.
 */
export async function waitForJob<R>(
  handle: QueueHandle,
  jobId: string,
  budgetMs: number,
  client?: Departure,
  onPart?: (data: string) => void,
  onStarted?: () => void,
): Promise<Outcome<R>> {
  const deadline = Date.now() + budgetMs;
  for (;;) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) return settledOutcome<R>(handle, jobId);
    // registered before the state is read: a notice between the two still ends the wait
    const wait = handle.waits.register(jobId, nextLook(handle, remaining), client, onPart, onStarted);
    let outcome: Outcome<R>;
    try {
      await handle.inbox.watch(jobId);
      outcome = await settledOutcome<R>(handle, jobId);
    } catch (error) {
      wait.cancel();
      throw error;
    }
    if (outcome.state !== 'pending') {
      wait.cancel();
      return outcome;
    }
    const { end } = await wait.ended;
    // its end or removal was told, or it is time to look again: either way its state says
    if (end === 'left' || end === 'stopping') return settledOutcome<R>(handle, jobId);
  }
}

/**
 * How long a wait goes before it looks at its job's state itself (`tuning.api.waitRecheckMs`, up to half as
 * long again at random: thousands of waits that began together do not all look at once), in steps
 * of a hundredth of it: Node keeps a list of timers per duration, and 10,000 waits of as many
 * durations each had a list of their own.
 */
export const nextLook = (handle: QueueHandle, remainingMs: number) => {
  const step = Math.max(1, Math.floor(handle.recheckMs / 100));
  const look = Math.round((handle.recheckMs * (1 + Math.random() / 2)) / step) * step;
  return Math.max(0, Math.min(remainingMs, look));
};

/**
 * Waits for a job this request just added, whose wait was registered before the add (no notice
 * can have been missed): its end comes with the result or the reason in the notice, answered
 * from the job as it was added, with no read of Redis. A look at its state (`tuning.api.waitRecheckMs`)
 * costs one read; the job ended without its notice reaching here, or anything else (a removal,
 * the budget, the client leaving), is answered from Redis as `waitForJob` does.
 */
export async function waitForAdded<R>(
  handle: QueueHandle,
  job: RelayJob,
  first: ReturnType<QueueHandle['waits']['register']>,
  budgetMs: number,
  client?: Departure,
  onPart?: (data: string) => void,
): Promise<Outcome<R>> {
  const deadline = Date.now() + budgetMs;
  for (let wait = first; ;) {
    const { end, completed, failed } = await wait.ended;
    if (completed) return { state: 'completed', job, result: completed.returnvalue as R };
    if (failed) return { state: 'failed', job, error: decodeFailure(failed.failedReason) };
    const remaining = deadline - Date.now();
    if (end === 'event') return waitForJob<R>(handle, job.id!, Math.max(0, remaining), client, onPart); // removed
    if (end !== 'timeout' || remaining <= 0) return settledOutcome<R>(handle, job.id!);
    // registered before the look: a notice between the two still ends the next wait
    wait = handle.waits.register(job.id!, nextLook(handle, remaining), client, onPart);
    if (!(await isUnderWay(handle.redis, job))) {
      wait.cancel();
      return settledOutcome<R>(handle, job.id!);
    }
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
