import { setTimeout as sleep } from 'node:timers/promises';
import type { Request, Response } from 'express';
import { AppError, currentTraceparent, type BlobStore, type Logger, type Replication } from '@relay/core';
import type { Reservation } from '@relay/billing';
import { newJobId, type JobKind, type JobMeta, type Lane, type QueueName, type RelayJob, type RequestWebhook } from '@relay/jobs';
import type { CancelReason, JobLife } from '@relay/life';
import type { Dialect } from '../http/dialects.js';
import type { AdmissionGate } from './admission-gate.js';
import { parsePrefer, waitBudget } from '../http/prefer.js';
import { parseCancelAfter } from '../http/cancel-after.js';
import { answer, jobLink, type Presenter } from './answer.js';
import type { DepthGuard } from './depth-guard.js';
import type { Idempotency } from './idempotency.js';
import type { Lifecycle } from './lifecycle.js';
import type { QueueHandle } from './queues.js';
import { ClientDeparture, type Departure } from './job-waits.js';
import { nextLook, waitForAdded, waitForJob } from './run-job.js';
import type { StreamedAnswer } from './stream-answer.js';
import type { ReadParts } from './live-answer.js';

export interface JobRequestDeps {
  /** Admission and cancellation: money, schedule and queue in one place (@relay/life). */
  life: JobLife;
  /** Where stored answers (files) are read from. */
  store: BlobStore;
  idempotency: Idempotency;
  /** Waits until what an answer depends on is on a Redis replica (behind Sentinel; at once otherwise). */
  replication: Pick<Replication, 'replicated' | 'mustBeAbleToWait'>;
  /** This process's admissions in flight, bounded: a burst is admitted in order, not all at once. */
  gate: AdmissionGate;
  lifecycle: Lifecycle;
  wait: { defaultMs: number; maxMs: number };
  /** A job's parts stream, for answers sent while their job runs. */
  parts: ReadParts;
  /** How long a job's end is kept (`tuning.api.jobKeepSeconds`): a cancelled job's too. */
  keepSeconds: number;
  /** Tells whoever asked of a job cancelled here (its webhooks). */
  cancelled: (queue: QueueName, job: RelayJob, reason: CancelReason) => Promise<void>;
  log: Logger;
}

/** One queue as an endpoint sees it. */
export interface JobRoute {
  queue: QueueName;
  kind: JobKind;
  handle: QueueHandle;
  guard: DepthGuard;
  jobName: string;
  dialect: Dialect;
}

export interface JobSpec<P> {
  reservation: Omit<Reservation, 'jobId' | 'accountId' | 'keyId'>;
  /** What the job weighs in the schedule (cost units of its queue: images, seconds of audio). */
  cost: number;
  /** What the request asked, for Idempotency-Key comparisons (computed only when a key is sent). */
  fingerprint: () => string;
  /** Builds the payload once money is reserved (uploads inputs); runs only for a new job. */
  prepare: (jobId: string) => Promise<P>;
  present: (job: RelayJob, result: unknown, streamed?: ReadonlySet<number>) => ReturnType<Presenter>;
  /** The job's id when the request made it already (a form's images are stored under it). */
  jobId?: string;
  /** A call that takes the job's parts as they are made (a streamed set of images, a clip as it is spoken). */
  stream?: StreamedAnswer;
  /** The webhook the request named (Relay-Webhook), told of the job's end. */
  webhook?: RequestWebhook;
}

/** The request's trace, carried in its job so the worker's spans join it (nothing when tracing is off). */
const traced = () => {
  const trace = currentTraceparent();
  return trace ? { trace } : {};
};

/** How long a first request may take to get its job queued (reservation, input uploads). */
const ADMISSION_MS = 30_000;

/**
 * The job an earlier request with the same Idempotency-Key made, once it is in the queue;
 * undefined when that request gave up before queueing, or its job has since been removed.
 */
async function awaitClaimedJob(
  route: JobRoute,
  idem: Idempotency,
  accountId: string,
  key: string,
  claim: { jobId: string; claimedAt: number },
): Promise<RelayJob | undefined> {
  for (;;) {
    const job = await route.handle.queue.getJob(claim.jobId);
    if (job) return job;
    if (!(await idem.stillNames(accountId, key, claim.jobId))) return undefined;
    if (Date.now() - claim.claimedAt > ADMISSION_MS) break;
    await sleep(50);
  }
  if (Date.now() - claim.claimedAt > 2 * ADMISSION_MS) {
    // a record that outlived its job (kept for `tuning.api.jobKeepSeconds`): the key is free again
    await idem.forget(accountId, key, claim.jobId);
    return undefined;
  }
  throw new AppError('unavailable', 'an earlier request with this Idempotency-Key is still being admitted; retry shortly', {
    retryAfterMs: 1_000,
  });
}

/**
 * The job this request is answered from: the one an earlier request with the same
 * Idempotency-Key made (a replay), or a new one, admitted through the depth guard and the
 * reservation. A key whose first request never got its job queued is claimed afresh.
 */
async function admit<P extends { meta: JobMeta }>(
  res: Response,
  deps: JobRequestDeps,
  route: JobRoute,
  spec: JobSpec<P>,
  budgetMs: number,
  client: Departure,
  idemKey?: string,
  cancelAfterMs?: number,
) {
  const caller = res.locals.caller!;
  const print = idemKey ? spec.fingerprint() : '';
  for (let attempt = 0; attempt < 3; attempt++) {
    deps.replication.mustBeAbleToWait();
    const jobId = (attempt === 0 ? spec.jobId : undefined) ?? newJobId(route.kind);
    if (idemKey) {
      const claim = await deps.idempotency.claim(caller.accountId, idemKey, print, jobId);
      if (claim.kind === 'conflict') {
        throw new AppError('idempotency_conflict', 'this Idempotency-Key was used with a different request; use a new key', {
          retryable: false,
        });
      }
      if (claim.kind === 'existing') {
        const job = await awaitClaimedJob(route, deps.idempotency, caller.accountId, idemKey, claim);
        if (!job) continue;
        // the job read may be one its own request still waits to see replicated
        await deps.replication.replicated();
        return { job, fresh: false };
      }
    }
    let admitted;
    try {
      // a caller who waits is served before 202 jobs and batch lines
      const lane: Lane = budgetMs > 0 ? 'interactive' : 'async';
      await route.guard(budgetMs, lane, caller.accountId);
      const reservation = { ...spec.reservation, jobId, accountId: caller.accountId, keyId: caller.keyId };
      // the wait is registered before the job exists: its end cannot come before anyone listens
      const wait = route.handle.waits.register(jobId, nextLook(route.handle, budgetMs), client, spec.stream?.onPart);
      try {
        const job = await deps.gate.admit(client, () =>
          deps.life.admit({
            queue: route.queue,
            name: route.jobName,
            reservation,
            lane,
            cost: spec.cost,
            // input images are fetched and stored without holding a place at the gate
            prepare: () => deps.gate.outside(() => spec.prepare(jobId)),
            // its end is told to this process's inbox, and to no other; nobody waits for an async job
            meta: {
              ...(budgetMs > 0 ? { inbox: route.handle.inbox.key } : {}),
              ...(cancelAfterMs !== undefined ? { deadline: Date.now() + cancelAfterMs } : {}),
              ...(spec.webhook ? { webhook: spec.webhook } : {}),
              ...traced(),
            },
            // each step goes on at a paced turn: one socket read of Redis replies resumes thousands
            // of requests during a burst, and unpaced their next steps run back to back
            pace: () => route.handle.turns.next(),
          }),
        );
        admitted = { job, fresh: true, wait };
      } catch (error) {
        wait.cancel();
        throw error;
      }
    } catch (error) {
      // a key left claimed for a job that never came would hold its retries off until it expires
      if (idemKey)
        await deps.idempotency
          .forget(caller.accountId, idemKey, jobId)
          .catch((err: Error) => deps.log.warn({ jobId, err: err.message }, 'an Idempotency-Key stays claimed after a failed submit'));
      throw error;
    }
    // Nothing is answered (202, a wait, a stream) before the job, its money and its key are on a
    // replica: an answer names a job a failover cannot lose. Failing here (Redis away), the job
    // stands and its key still names it: the 503's retry with the key finds it.
    await deps.replication.replicated().catch((error: unknown) => {
      admitted.wait.cancel();
      throw error;
    });
    return admitted;
  }
  throw new AppError('unavailable', 'could not admit the request; retry shortly', { retryAfterMs: 1_000 });
}

/**
 * The path every generation takes after validation: Idempotency-Key, the queue-depth guard,
 * reservation and queueing, waiting within the caller's budget (Prefer), cancelling when the
 * caller leaves before the job started, and the answer (200, error, or 202 with the job).
 */
export async function handleJobRequest<P extends { meta: JobMeta }>(
  req: Request,
  res: Response,
  deps: JobRequestDeps,
  route: JobRoute,
  spec: JobSpec<P>,
) {
  const { budgetMs, applied } = waitBudget(parsePrefer(req), deps.wait.defaultMs, deps.wait.maxMs);
  if (applied) res.set('Preference-Applied', applied);
  const idemKey = req.get('idempotency-key');
  if (idemKey !== undefined && (idemKey.length === 0 || idemKey.length > 255)) {
    throw new AppError('invalid_request', 'Idempotency-Key must be 1 to 255 characters', { param: 'Idempotency-Key' });
  }
  const cancelAfterMs = parseCancelAfter(req);
  const client = new ClientDeparture();
  let deadline: NodeJS.Timeout | undefined;
  res.on('close', () => {
    clearTimeout(deadline);
    if (!res.writableFinished) client.leave();
  });
  for (let attempt = 0; ; attempt++) {
    const { job, fresh, wait } = await admit(res, deps, route, spec, budgetMs, client, idemKey, cancelAfterMs);
    if (fresh) {
      cancelWhenGone(client, res, job, deps, route, idemKey);
      res.removeHeader('Idempotent-Replayed');
      // the worker would find it late only when it takes it: a caller who waits is told at the deadline
      if (cancelAfterMs !== undefined && budgetMs > 0) {
        clearTimeout(deadline);
        deadline = setTimeout(() => {
          deps.life
            .cancelFor(route.queue, job, 'deadline', deps.keepSeconds)
            .then((cancelled) => (cancelled ? deps.cancelled(route.queue, job, 'deadline') : undefined))
            .catch((err: Error) => deps.log.warn({ jobId: job.id, err: err.message }, 'could not cancel a job past its deadline'));
        }, cancelAfterMs);
        deadline.unref();
      }
    } else {
      res.set('Idempotent-Replayed', 'true');
    }
    if (spec.stream && attempt === 0) {
      // a client that leaves mid-stream keeps what it paid for: the job and its results stay there
      res.set('Location', jobLink(job.id!));
      spec.stream.begin(res);
    }
    const outcome = wait
      ? await waitForAdded<unknown>(route.handle, job, wait, budgetMs, client, spec.stream?.onPart)
      : await waitForJob<unknown>(route.handle, job.id!, budgetMs, client);
    if (client.aborted) return;
    // a replay whose first request left before its job started finds that job dropped from the
    // queue, or refused by the worker that held it: it never ran, so this request runs it again
    const replayOfCancelled = !fresh && outcome.state === 'failed' && outcome.error.code === 'cancelled';
    if (outcome.state !== 'gone' && !replayOfCancelled) {
      if (spec.stream && (await spec.stream.settled()))
        return spec.stream.end(
          outcome,
          () => spec.present(outcome.job, 'result' in outcome ? outcome.result : undefined, spec.stream!.sent),
          route.dialect,
        );
      return answer(res, route.handle, outcome, spec.present, route.dialect, deps.store);
    }
    if (fresh || attempt >= 2) {
      const error = new AppError('unavailable', `job ${job.id} left the queue before it finished; retry the request`, {
        retryAfterMs: 1_000,
      });
      if (spec.stream && (await spec.stream.settled()))
        return spec.stream.end({ state: 'failed', job, error }, () => Promise.reject(error), route.dialect);
      throw error;
    }
  }
}

/**
 * A caller that leaves before its job's upstream call began cancels it: nothing is charged,
 * and the job is dropped (or, if a worker already holds it, refused by the worker). The key is
 * freed before the job is dropped, so a replay woken by the removal can claim it afresh.
 */
function cancelWhenGone(left: Departure, res: Response, job: RelayJob, deps: JobRequestDeps, route: JobRoute, idemKey: string | undefined) {
  const accountId = res.locals.caller!.accountId;
  const cancel = () =>
    void deps.life
      .cancel(route.queue, job, {
        beforeRemoval: idemKey ? () => deps.idempotency.forget(accountId, idemKey, job.id!) : undefined,
        // only a replay of the same Idempotency-Key can be waiting for it elsewhere
        tellWaiters: idemKey !== undefined,
      })
      .then((cancelled) => {
        if (cancelled) deps.log.info({ jobId: job.id, requestId: res.locals.requestId }, 'client left before the job started: cancelled');
      })
      .catch((err: Error) => deps.log.warn({ jobId: job.id, err: err.message }, 'could not cancel an abandoned job'));
  // a client that left while its job was being admitted fired its abort before anyone listened
  if (left.aborted) cancel();
  else left.addEventListener('abort', cancel, { once: true });
}
