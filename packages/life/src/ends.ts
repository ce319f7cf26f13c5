import { isInterruption } from '@relay/core';
import { QUEUES, type MoveRider, type QueueName, type RelayJob, type RelayWorker, type RelayWorkers, type Result } from '@relay/jobs';
import type { LifeDeps } from './deps.js';
import { noticeStep, notifyEnd, notifyWaiters } from './notices.js';
import type { Running } from './running.js';

/** How a job ended for good: completed with its result, or failed with the reason it was given up on. */
export type JobEnd = {
  [Q in QueueName]: { job: RelayJob<Q>; queue: Q } & (
    { outcome: 'completed'; result: Result<Q> } | { outcome: 'failed'; failedReason: string }
  );
}[QueueName];

export type EndSubscriber = (end: JobEnd) => unknown;

/** At most this many jobs running here, and ids of completions told with their move, are kept (an end never heard here leaves one). */
const TOLD_MAX = 100_000;

/** How many more runs a charged job BullMQ gave up on for stalling gets before its failure is told. */
const OWED_RERUNS = 3;

/**
 * The one place that decides a job has ended, and tells everyone who cares: its money (a job
 * BullMQ failed without running it, after stalling too often, gives its reservation back), its
 * place in the schedule, the api processes waiting for it, and whoever subscribes (batches,
 * webhooks). A completion, or a failure BullMQ will not retry, is known from the job BullMQ just
 * moved (a final failure has `finishedOn`; a retry has not), with no read of Redis.
 */
export function createEnds(deps: LifeDeps, running: Running) {
  /** Jobs running in this process's workers, by id: a completion may be told with BullMQ's move (`completing`). */
  const runningHere = new Map<string, RelayJob<QueueName>>();
  /** Ids of jobs whose completion was told with its move: not told again when BullMQ says it completed. */
  const toldWithMove = new Set<string>();
  const subscribers: EndSubscriber[] = [
    (end) => (end.outcome === 'failed' ? deps.billing.release(end.job.id!) : undefined),
    (end) => running.ended(end.job),
    (end) =>
      toldWithMove.delete(end.job.id!)
        ? undefined
        : notifyEnd(deps.redis, deps.prefix, end.job, end.outcome === 'completed' ? { result: end.result } : end),
  ];

  const failedToTell = (jobId: string) => (error: Error) => deps.log.warn({ jobId, err: error.message }, 'a job-end subscriber failed');

  /**
   * With no replica to wait for (a single Redis, a Cluster), a completion is told to the api
   * processes waiting for it in the same script as BullMQ's move of the job to completed, right
   * after the move, so whoever hears it finds the job completed. Behind Sentinel the end is told
   * only once a replica has it (tell). A move that then fails (the job's lock lost to another
   * worker, which runs it again from its checkpoints and charges nothing more) has been told all
   * the same: with this run's result.
   */
  const completing = deps.replicated
    ? undefined
    : (jobId: string, returnvalue: string): MoveRider | undefined => {
        const job = runningHere.get(jobId);
        if (!job) return undefined; // taken before this process watched: told the usual way
        runningHere.delete(jobId);
        if (job.data.meta.batch) return undefined;
        if (toldWithMove.size >= TOLD_MAX) toldWithMove.clear(); // ids of moves that failed: their jobs ended elsewhere
        toldWithMove.add(jobId);
        const notice = { type: 'completed', jobId, data: returnvalue } as const;
        return {
          steps: [noticeStep(deps.prefix, notice, job.data.meta.inbox)],
          told([outcome]) {
            if (outcome!.ok) return;
            deps.log.warn({ jobId, err: outcome!.error.message }, 'a completion could not be told with its move; told again');
            // told when BullMQ says it completed, or now if that was heard already
            if (!toldWithMove.delete(jobId)) notifyWaiters(deps.redis, deps.prefix, notice, job.data.meta.inbox).catch(failedToTell(jobId));
          },
        };
      };

  /**
   * Whether an end whose replication could not be seen (the primary died mid-wait) is still in
   * Redis now that it answers again (the new primary): one lost with the old primary is not told,
   * its job runs again and ends again. Unreadable, it is told: told twice beats never told.
   */
  const survived = async (end: JobEnd) => ((await end.job.getState().catch(() => end.outcome)) as string) === end.outcome;

  const tell = async (end: JobEnd) => {
    const failed = (error: Error) => deps.log.warn({ jobId: end.job.id, err: error.message }, 'a job-end subscriber failed');
    // An end is told (to its waiting caller, its webhook, its batch) only once it, its charge and
    // the paid answers before it are on a replica: one told is one a failover cannot take back.
    const kept = await (deps.replicated?.().then(
      () => true,
      () => survived(end),
    ) ?? true);
    if (!kept) {
      deps.log.warn({ jobId: end.job.id }, 'a job end lost with the old Redis primary: not told; the job runs again');
      return;
    }
    for (const subscriber of subscribers) {
      try {
        const done = subscriber(end);
        if (done instanceof Promise) done.catch(failed);
      } catch (error) {
        failed(error as Error);
      }
    }
  };

  /**
   * A job BullMQ gave up on because the workers running it kept stopping is owed its result, not a
   * refund, once it was charged: its worker stored and settled it, then died before BullMQ heard
   * (a Redis failover cost the worker its lock, then the worker was killed: chaos seed 29 found
   * it answered "nothing was charged"). Run again, it ends with its result and its second settle
   * charges nothing (an image job answers from its checkpoint; speech asks the vendor again). A
   * few such runs at most: one that still stalls after them is told as failed.
   */
  const owedItsResult = async (job: RelayJob<QueueName>, maxStalledCount: number) =>
    isInterruption(job.failedReason) &&
    job.stalledCounter <= maxStalledCount + OWED_RERUNS &&
    (await deps.billing.reservationState(job.id!).catch(() => undefined)) === 'settled';

  const failedForGood = async (end: JobEnd & { outcome: 'failed' }, maxStalledCount: number) => {
    if (await owedItsResult(end.job, maxStalledCount)) {
      try {
        await end.job.retry('failed');
        deps.log.warn(
          { jobId: end.job.id, stalled: end.job.stalledCounter },
          'a charged job given up on for stalling runs again for its result',
        );
        return;
      } catch (error) {
        deps.log.error({ jobId: end.job.id, err: (error as Error).message }, 'a charged job given up on for stalling could not run again');
      }
    }
    await tell(end);
  };

  return {
    /** For the workers' connections (runWithRelayScripts): a completion told with its move, where nothing is waited for. */
    completing,
    /** `subscriber` is told of every job that ends in this process's workers. */
    onEnded(subscriber: EndSubscriber) {
      subscribers.push(subscriber);
    },
    /** Hears the ends of the jobs these workers run. */
    watch(workers: Partial<RelayWorkers>) {
      const watchOne = <Q extends QueueName>(queue: Q, worker: RelayWorker<Q>) => {
        if (completing)
          worker.on('active', (job) => {
            if (runningHere.size >= TOLD_MAX) runningHere.clear(); // jobs whose end was never heard here (lost to another worker)
            runningHere.set(job.id!, job as RelayJob<QueueName>);
          });
        worker.on('completed', (job, result) => {
          runningHere.delete(job.id!);
          running.completedWithHeld(job.id!);
          void tell({ job, queue, outcome: 'completed', result } as JobEnd);
        });
        worker.on('failed', (job) => {
          if (job) {
            runningHere.delete(job.id!);
            running.dropHeld(job.id!);
          }
          if (job?.finishedOn)
            void failedForGood(
              { job, queue, outcome: 'failed', failedReason: job.failedReason } as JobEnd & { outcome: 'failed' },
              worker.opts.maxStalledCount ?? 1,
            );
        });
      };
      // every capability's, by the queue list: one added later is heard without a line here
      for (const queue of Object.keys(QUEUES) as QueueName[]) {
        const worker = workers[queue];
        if (worker) watchOne(queue, worker);
      }
    },
  };
}
