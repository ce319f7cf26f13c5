import type { Job } from 'bullmq';
import type { Billing, Reservation } from '@relay/billing';
import type { Logger } from '@relay/core';
import type { JobMeta, Lane } from '@relay/jobs';
import { PARKED_MS } from '@relay/scheduler';
import type { QueueHandle } from './queues.js';

export interface Admission {
  lane: Lane;
  /** What the job weighs in the schedule (cost units of its queue). */
  cost: number;
}

/**
 * Money first: the request's maximum cost is reserved before any work (uploading inputs,
 * queueing). The job then joins its account's line in its lane and is added to BullMQ parked
 * (delayed far ahead) until the scheduler promotes it, or straight to waiting when nothing is
 * pending and the window has room (the scheduler counts it as handed out). It is enqueued before it
 * is added: a dispatcher that picks it before the add lands promotes it once it does, while a
 * job added but never enqueued would stay parked. If anything fails before the job is queued, the
 * reservation is released; a job whose reservation is gone is never run by a worker.
 * No BullMQ priority: the dispatcher orders the lanes, and BullMQ requeues a prioritized job after
 * a rate-limit pause without waking its workers (they would sleep out their block timeout).
 */
export async function submitJob<P extends { meta: JobMeta }>(
  billing: Billing,
  handle: QueueHandle,
  name: string,
  reservation: Reservation,
  admission: Admission,
  prepare: () => Promise<P>,
  log: Logger,
): Promise<Job> {
  const { jobId, accountId } = reservation;
  await billing.reserve(reservation);
  let started = false;
  try {
    // each step below goes on at a paced turn: one socket read of Redis replies resumes
    // thousands of requests during a burst, and unpaced their next steps run back to back
    await handle.turns.next();
    const payload = await prepare();
    // the job names this process's inbox: its end is told here, and to no other api process
    const data = { ...payload, meta: { ...payload.meta, ...admission, inbox: handle.inbox.key } };
    started = (await handle.scheduler.admit(jobId, admission.lane, accountId, admission.cost)) === 'started';
    await handle.turns.next();
    if (started) {
      // its watch in the schedule (in case the add never happened) ends when its calls are over
      return await handle.queue.add(name, data, { jobId });
    }
    const job = await handle.queue.add(name, data, { jobId, delay: PARKED_MS });
    handle.scheduler.nudge();
    return job;
  } catch (error) {
    // the caller gets the first error; a clean-up that fails too is said, and heals itself (the
    // scheduler's recovery drops the entry, the reservation sweeper releases the money)
    const cleanUpFailed = (what: string) => (cleanUp: Error) =>
      log.warn({ jobId, err: cleanUp.message }, `after a failed submit, ${what} did not happen`);
    await (started ? handle.scheduler.finished(jobId) : handle.scheduler.cancel(jobId)).catch(cleanUpFailed('the schedule clean-up'));
    await billing.release(jobId).catch(cleanUpFailed('the release of the reservation'));
    throw error;
  }
}
