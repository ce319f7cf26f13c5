import { freshStep, inSpan, runStep, runSteps, valueOf, type FreshFile, type ScriptHost, type Step } from '@relay/core';
import { movesCarryHooks, progressStep, type QueueName, type MetaJob } from '@relay/jobs';
import { createHeldCharges, type HeldCharge } from './held-charges.js';
import type { BeginLease } from '@relay/billing';
import type { LifeDeps } from './deps.js';
import { cancelledByError, cancelledError, stoppedError } from './cancel.js';
import { INBOX_MAX_LENGTH, waiterSetKey } from './notices.js';

const queueOf = (job: MetaJob) => job.queueName as QueueName;

/** Ids of jobs whose place this process freed when their calls were over: their end needs no second round trip. */
const FREED_MAX = 100_000;

/** What a job is charged (an amount of micro-units for its units, at most its reservation). */
export interface Charge {
  accountId: string;
  amount: number;
  units: string;
  channel?: string;
}
type Settled = { charged: number; applied: boolean };
/** A charge's steps (its checkpoint, the charge, the fresh files) and what their outcomes come to. */
type ChargeSteps = HeldCharge<Settled>;

/** The worker running a job (BullMQ's job keeps it as its queue). */
const workerOf = (job: MetaJob) => (job as unknown as { queue: object }).queue;

/**
 * A job's life on the worker: the moment its upstream call begins, its paid answers kept as they
 * arrive, the moment its calls are over (its place in the schedule goes to the next job while it
 * copies), its charge, and the end of a job given up on.
 */
export function createRunning(deps: LifeDeps) {
  const freed = new Set<string>();
  const failed = (jobId: string | undefined, what: string) => (error: Error) => deps.log.warn({ jobId, err: error.message }, what);

  /**
   * The charge and, before it, the checkpoint the job keeps with it; after it, the files just
   * stored, published to the api process that waits to answer with their bytes (a job nobody
   * waits for synchronously sends none: @relay/core's fresh.ts).
   */
  const chargeSteps = (job: MetaJob, charge: Charge, checkpoint?: object, fresh: FreshFile[] = []): ChargeSteps => {
    const settle = deps.billing.steps.settle(charge.accountId, job.id!, charge.amount, charge.units, charge.channel);
    const { inbox, batch } = job.data.meta;
    const also = inbox && !batch ? fresh.flatMap((file) => freshStep(inbox, file) ?? []) : [];
    const write = checkpoint ? progressStep(job, checkpoint) : undefined;
    return {
      steps: [...(write ? [write] : []), settle, ...also] as Step<unknown>[],
      charged(outcomes) {
        const written = write ? outcomes[0] : undefined;
        const settled = valueOf(outcomes[write ? 1 : 0]!) as Settled;
        // charged and answered all the same: only a later run (the worker dying now) would pay the vendor again
        if (written && !written.ok) failed(job.id, 'could not keep the checkpoint of a charged job')(written.error);
        else if (written && checkpoint) job.progress = checkpoint;
        // a fresh copy that could not be published is read back from the store by the api: nothing lost
        return settled;
      },
    };
  };

  /** Sends a charge (its checkpoint first, the fresh files after, in the same script) on `redis`. */
  const send = async (redis: ScriptHost, charge: ChargeSteps): Promise<Settled> => charge.charged(await runSteps(redis, charge.steps));

  const held = createHeldCharges(send, deps.redis, deps.log);

  /** After the schedule said the place is free: a pending job may take it now. */
  const placeFreed = (queue: QueueName, jobId: string, pending: boolean) => {
    if (freed.size >= FREED_MAX) freed.clear(); // ids of jobs that never ended here (taken over elsewhere)
    freed.add(jobId);
    if (pending) deps.schedulers[queue].nudge();
  };

  /**
   * Right before the upstream call: the last moment its client can cancel it for free (then it
   * must not call). A job past its Cancel-After deadline is cancelled here instead, uncharged.
   * Those following its events hear that it began. `lease`: the channel's lease picked in the
   * same round trip (the router's gate); false when that pick leased none, and nothing began.
   */
  const beginning = (job: MetaJob, lease?: BeginLease): Step<boolean> | (() => Promise<boolean>) => {
    const { deadline } = job.data.meta;
    if (deadline !== undefined && Date.now() > deadline) {
      return async () => {
        await deps.billing.cancel(job.id!);
        throw cancelledByError('deadline');
      };
    }
    // those following its events (its waiter set) hear it began in the same step
    const step = deps.billing.steps.begin(job.id!, { inboxes: waiterSetKey(deps.prefix, job.id!), maxLength: INBOX_MAX_LENGTH }, lease);
    return {
      ...step,
      parse(raw) {
        const begun = step.parse(raw);
        if (begun === 'cancelled') throw cancelledError();
        if (begun === 'stopped') throw stoppedError();
        return begun === 'begin';
      },
    };
  };

  return {
    /** `beginning`, sent on its own. */
    async begin(job: MetaJob, lease?: BeginLease): Promise<boolean> {
      const asked = beginning(job, lease);
      return typeof asked === 'function' ? asked() : runStep(deps.redis, asked);
    },

    /**
     * The same as begin, as a channel pick's gate: a step to send in the same script as the pick
     * (for a job past its deadline, which is cancelled and must not call, what cancels it).
     */
    beginning,

    /** Whether its owner stopped the job: read while it waits with no call to begin (every channel cooling). */
    stopping: (job: MetaJob) => deps.billing.stopping(job.id!),

    /**
     * Keeps what the job paid for (upstream answers, stored images) in the job, so a retry re-runs
     * only what is missing and never pays twice. `callsOver`: these were its last upstream calls,
     * and its place in the schedule is freed in the same round trip.
     */
    async checkpoint(job: MetaJob, progress: object, options: { callsOver?: boolean } = {}) {
      const write = progressStep(job, progress);
      if (!options.callsOver || freed.has(job.id!)) {
        valueOf((await runSteps(deps.redis, [write]))[0]);
      } else {
        const [written, place] = await runSteps(deps.redis, [write, deps.schedulers[queueOf(job)].steps.finished(job.id!)]);
        if (place.ok) placeFreed(queueOf(job), job.id!, place.value.pending);
        else failed(job.id, 'could not free a place in the schedule; the job end will')(place.error);
        valueOf(written);
      }
      job.progress = progress;
    },

    /** The job is past its upstream calls (unless a checkpoint said so already): its place goes to the next job now. */
    callsOver(job: MetaJob) {
      if (freed.has(job.id!)) return;
      deps.schedulers[queueOf(job)]
        .finished(job.id!)
        .then(({ pending }) => placeFreed(queueOf(job), job.id!, pending))
        .catch(failed(job.id, 'could not free a place in the schedule; the job end will'));
    },

    /**
     * Charges what was delivered (never more than was held) and gives the rest back: a span of the
     * job's trace. `checkpoint`: what the job keeps so a later run answers without paying again,
     * written just before the charge in the same round trip.
     *
     * The job's last step: `ready` resolves when the job may return its result, `settled` with
     * the charge. Where nothing waits for a replica and the job's worker carries MoveHooks, the
     * charge is held and runs in the same script as BullMQ's move of the job to completed, just
     * before it (one command, and Redis has the charge before the end); `ready` then
     * resolves at once. Otherwise (behind Sentinel) the charge is made first and `ready` waits
     * for it: a charge that fails fails the attempt, as the end must not be told before it.
     * `fresh`: files just stored, left for the api that waits to answer with their bytes.
     */
    settle(job: MetaJob, charge: Charge, checkpoint?: object, fresh?: FreshFile[]): { ready: Promise<void>; settled: Promise<Settled> } {
      const steps = chargeSteps(job, charge, checkpoint, fresh);
      const holding = !deps.replicated && movesCarryHooks(workerOf(job)) && held.room();
      const sent = holding ? held.hold(job.id!, steps) : send(deps.redis, steps);
      const settled = inSpan('relay.settle', { 'relay.units': charge.units, 'relay.amount': charge.amount }, async (span) => {
        const outcome = await sent;
        span.setAttribute('relay.charged', outcome.charged);
        return outcome;
      });
      // a held charge's failure is logged where it is sent; otherwise `ready` gives it to the caller
      settled.catch(() => undefined);
      return { ready: holding ? Promise.resolve() : settled.then(() => undefined), settled };
    },

    /** MoveHooks' `before`: a job's held charge, in the same script as its move, just before it. */
    heldCharge: (jobId: string) => held.ride(jobId),

    /** A job BullMQ says completed whose held charge was not sent with its move (its worker had no hooks): sent now. */
    completedWithHeld: (jobId: string) => held.sendLate(jobId),

    /** A job whose attempt failed after its charge was held (BullMQ could not move it to completed): the charge is dropped. */
    dropHeld: (jobId: string) => held.drop(jobId),

    /**
     * A job failed for good: its money back. It keeps its payload (the same shape all its life,
     * as a finished job does) for `tuning.api.jobKeepSeconds`, so its error can be fetched.
     */
    async gaveUp(job: MetaJob) {
      await deps.billing.release(job.id!);
    },

    /** The job ended for good: its place, unless freed already when its calls were over. */
    ended(job: MetaJob) {
      if (freed.delete(job.id!)) return;
      const scheduler = deps.schedulers[queueOf(job)];
      scheduler
        .finished(job.id!)
        .then(({ pending }) => pending && scheduler.nudge())
        .catch(failed(job.id, 'could not end a job in the schedule; the next recovery will'));
    },
  };
}

export type Running = ReturnType<typeof createRunning>;
