import type { Queue } from 'bullmq';
import { AppError, runSteps, valueOf, type StepOutcome } from '@relay/core';
import { reserved, type Reservation } from '@relay/billing';
import { assertPlainJob, type JobMeta, type Lane, type PlainJobOptions, type QueueName, type RelayJob } from '@relay/jobs';
import { type Admitted, PARKED_MS } from '@relay/scheduler';
import type { LifeDeps } from './deps.js';

/** What an accepted request (or batch line) becomes: its job, in its lane, weighing `cost`. */
export interface Admission<P extends { meta: JobMeta }> {
  queue: QueueName;
  /** BullMQ's name for the job (the processor does not dispatch on it). */
  name: string;
  reservation: Reservation;
  lane: Lane;
  /** What the job weighs in the schedule (cost units of its queue: images, seconds of audio). */
  cost: number;
  /** Builds the payload once money is held and the job has its place (uploads inputs). */
  prepare: () => Promise<P>;
  /** More of the job's meta: the inbox that waits for it, the batch line it runs, its Cancel-After deadline. */
  meta?: Pick<JobMeta, 'inbox' | 'batch' | 'deadline' | 'trace'>;
  options?: PlainJobOptions;
  /** Awaited before each step after a Redis reply: the api paces bursts of admissions. */
  pace?: () => Promise<void>;
}

/**
 * How a job is accepted, for a request and a batch line alike: money first (the most it can
 * cost, held), its place in the schedule in the same round trip, then its payload (inputs
 * uploaded only once both are held), then BullMQ: waiting when it was handed to the workers at
 * once, parked (delayed far ahead) when it waits for its turn. A dispatcher that picks a job
 * whose add has not landed yet promotes it once it does. Whatever fails before the add undoes
 * what was held, so a job is in the queue with its money and its place, or not at all.
 */
export function createAdmission(deps: LifeDeps) {
  const { billing, schedulers, queues } = deps;

  /** Out of the schedule: cancelled while pending, or its place freed if a dispatcher picked it meanwhile. */
  async function leaveSchedule(queue: QueueName, jobId: string) {
    if (!(await schedulers[queue].cancel(jobId))) await schedulers[queue].finished(jobId);
  }

  async function undo(queue: QueueName, jobId: string, place: StepOutcome<Admitted>, release: boolean) {
    const failed = (what: string) => (error: Error) =>
      deps.log.warn({ jobId, err: error.message }, `after a failed admission, ${what} did not happen`);
    // a clean-up that fails heals itself: the scheduler's recovery drops the entry, the reservation sweeper releases the money
    // a place the job held already (a batch line fed again while its job runs, or this admission's
    // own first run whose reply was lost: the two look alike) is not given back here; recover()
    // frees one whose job never reached BullMQ
    const took = place.ok && (place.value === 'started' || place.value === 'queued');
    if (took) await leaveSchedule(queue, jobId).catch(failed('the schedule clean-up'));
    if (release) await billing.release(jobId).catch(failed('the release of the reservation'));
  }

  /**
   * The one place a payload becomes a job: the door that built it built it for this queue, so
   * from here on it is that queue's RelayJob, typed through its whole life.
   */
  async function add<P extends { meta: JobMeta }>(spec: Admission<P>, placed: Admitted): Promise<RelayJob> {
    const { jobId } = spec.reservation;
    await spec.pace?.();
    const payload = await spec.prepare();
    const data = { ...payload, meta: { ...payload.meta, lane: spec.lane, cost: spec.cost, ...spec.meta } };
    await spec.pace?.();
    // the queue's own types cannot be told which capability's payload P is: they are said once here
    const queue = queues[spec.queue] as unknown as Queue<object, unknown, string>;
    // a job that holds a running place goes to the workers; one waiting for its turn is parked until a dispatch promotes it
    const runs = placed === 'started' || placed === 'running';
    const options = runs ? { ...spec.options, jobId } : { ...spec.options, jobId, delay: PARKED_MS };
    assertPlainJob(options); // the relay's BullMQ scripts run no child or deduplicated job (bull-flows.ts)
    const job = (await queue.add(spec.name, data, options)) as unknown as RelayJob;
    if (!runs) schedulers[spec.queue].nudge();
    return job;
  }

  const place = <P extends { meta: JobMeta }>(spec: Admission<P>) =>
    schedulers[spec.queue].steps.admit(spec.reservation.jobId, spec.lane, spec.reservation.accountId, spec.cost);

  return {
    /** A request: its reservation from the account's balance (402 when short), in one round trip with its place. */
    async admit<P extends { meta: JobMeta }>(spec: Admission<P>): Promise<RelayJob> {
      const { jobId } = spec.reservation;
      const [money, placed] = await runSteps(deps.redis, [billing.steps.reserve(spec.reservation), place(spec)]);
      try {
        reserved(spec.reservation, valueOf(money));
        return await add(spec, valueOf(placed));
      } catch (error) {
        await undo(spec.queue, jobId, placed, money.ok && money.value.status === 1);
        throw error;
      }
    },

    /**
     * A batch line: its reservation carved out of the batch's hold (`holdId`). Fed again after an
     * interruption, it goes on from what the last feed did; a line whose reservation began or
     * closed is on its way already (`underway`), one the hold cannot cover is `short`, and one
     * whose payload cannot be built (a final error) is `refused` with its money given back.
     */
    async feed<P extends { meta: JobMeta }>(
      spec: Admission<P> & { holdId: string },
    ): Promise<{ job: RelayJob } | { short: true } | { underway: true } | { refused: AppError }> {
      const { jobId } = spec.reservation;
      const [money, placed] = await runSteps(deps.redis, [billing.steps.carve(spec.holdId, spec.reservation), place(spec)]);
      let carved;
      try {
        carved = valueOf(money);
      } catch (error) {
        await undo(spec.queue, jobId, placed, false);
        throw error;
      }
      if (carved.outcome === 'short' || (carved.outcome === 'exists' && carved.state !== 'reserved')) {
        await undo(spec.queue, jobId, placed, false);
        return carved.outcome === 'short' ? { short: true } : { underway: true };
      }
      try {
        return { job: await add(spec, valueOf(placed)) };
      } catch (error) {
        // the store or DNS away: the line is fed again at the next step, its money still carved
        const final = error instanceof AppError && !error.retryable;
        await undo(spec.queue, jobId, placed, final);
        if (final) return { refused: error };
        throw error;
      }
    },

    leaveSchedule,
  };
}
