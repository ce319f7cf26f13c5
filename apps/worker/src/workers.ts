import { DelayedError, UnrecoverableError, Worker } from 'bullmq';
import { context } from '@opentelemetry/api';
import { byQueue, coalesceWrites, contextOf, inSpan, queueConnection, SpanKind, tracer, type Logger } from '@relay/core';
import type { JobLife } from '@relay/life';
import {
  CAPABILITIES,
  modelOfStored,
  openRelayQueues,
  QUEUE_STREAMS,
  QUEUES,
  runWithRelayScripts,
  type JobName,
  type MetaJob,
  type Payload,
  type QueueName,
  type RelayJob,
  type RelayQueues,
  type RelayWorker,
  type RelayWorkers,
  type Result,
  useRelayScripts,
} from '@relay/jobs';
import { toJobError } from './job-errors.js';
import { attemptFailedLevel } from './log-levels.js';
import type { WorkerMetrics } from './metrics.js';

export type Processor<Q extends QueueName> = (job: RelayJob<Q>) => Promise<Result<Q>>;

/** A queue's processor and how many of its jobs this process runs at once (the upstream's capacity is the channels' leases, across all processes). */
export type QueueSetup<Q extends QueueName = QueueName> = { [K in Q]: { process: Processor<K>; concurrency: number } }[Q];

/** A queue without a processor is a compile error: every queue of the contract must be served. */
export type Processors = { [Q in QueueName]: QueueSetup<Q> };

export interface WorkerSettings {
  redisUrl: string;
  prefix: string;
  lockMs: number;
  stalledCheckMs: number;
  maxStalledCount: number;
  rateLimit: { defaultMs: number; maxMs: number };
  /** How long a job may wait in all for a channel (`tuning.worker.upstreamWaitMaxMs`). */
  waitMaxMs: number;
  /** A job given up on gives its money back and drops its request (@relay/life). */
  life: Pick<JobLife, 'gaveUp' | 'stopping' | 'moveHooks'>;
  metrics: WorkerMetrics;
  log: Logger;
}

/** The relay's queues as this worker process writes to them (its schedule promotes, its batches feed). */
export function openWorkerQueues(redisUrl: string, prefix: string, log: Logger): RelayQueues {
  const queues = openRelayQueues(() => ({ connection: queueConnection(redisUrl, 'patient'), prefix, streams: QUEUE_STREAMS }));
  for (const [name, queue] of Object.entries(queues)) {
    queue.on('error', (err) => log.warn({ err: err.message, queue: name }, 'queue connection error'));
    // the schedule's promotions and the batch lines' adds leave in one write per turn
    queue.backend.connection.client.then(coalesceWrites, () => undefined);
    void useRelayScripts(queue);
  }
  return queues;
}

export interface RunningWorkers {
  workers: RelayWorkers;
  close(): Promise<void>;
}

/**
 * One attempt of a job as a span in the trace its request began (the traceparent its meta
 * carries), with the time it waited for its turn before it as a span of its own: an operator
 * reads in one trace whether a slow answer waited, retried, called slowly or stored slowly.
 */
function traceAttempt<T>(job: MetaJob, queue: QueueName, model: string, run: () => Promise<T>): Promise<T> {
  const { meta } = job.data;
  return context.with(contextOf(meta.trace), () => {
    if (job.attemptsStarted <= 1) {
      tracer()
        .startSpan('relay.schedule_wait', { startTime: job.timestamp, attributes: { 'relay.queue': queue } })
        .end();
    }
    return inSpan(
      `relay.job ${queue}`,
      {
        'gen_ai.operation.name': CAPABILITIES[queue].operation,
        'gen_ai.request.model': model,
        'relay.job.id': job.id ?? '',
        'relay.account.id': meta.accountId,
        'relay.attempt': job.attemptsMade + 1,
      },
      run,
      SpanKind.CONSUMER,
    );
  });
}

/** The worker of one queue: each attempt traced, timed and counted, its failure turned into what BullMQ should do. */
function startWorker<Q extends QueueName>(name: Q, setup: QueueSetup<Q>, settings: WorkerSettings): RelayWorker<Q> {
  const worker = new Worker<Payload<Q>, Result<Q>, JobName<Q>>(
    QUEUES[name],
    async (job, token) => {
      const { metrics } = settings;
      const model = modelOfStored(name, job.data);
      if (job.attemptsStarted <= 1) metrics.jobWait.observe({ queue: name }, Math.max(0, (Date.now() - job.timestamp) / 1000));
      const timer = metrics.jobDuration.startTimer({ queue: name, model });
      try {
        const result = await traceAttempt(job, name, model, () => setup.process(job));
        timer({ outcome: 'completed' });
        return result;
      } catch (error) {
        const attempt = job.attemptsMade + 1;
        const attempts = job.opts.attempts ?? 1;
        const failure = await toJobError(error, {
          job,
          token,
          attempt,
          attempts,
          rateLimit: settings.rateLimit,
          waitMaxMs: settings.waitMaxMs,
          stopping: () => settings.life.stopping(job),
        });
        const rateLimited = failure instanceof DelayedError;
        const final = !rateLimited && (failure instanceof UnrecoverableError || attempt >= attempts);
        timer({ outcome: rateLimited ? 'rate_limited' : final ? 'failed' : 'retried' });
        if (rateLimited) metrics.rateLimitPauses.inc({ queue: name });
        else if (!final) metrics.retries.inc({ queue: name });
        if (final) await settings.life.gaveUp(job);
        throw failure;
      }
    },
    {
      connection: queueConnection(settings.redisUrl, 'patient'),
      prefix: settings.prefix,
      concurrency: setup.concurrency,
      lockDuration: settings.lockMs,
      stalledInterval: settings.stalledCheckMs,
      maxStalledCount: settings.maxStalledCount,
      // started below, once its connection runs the relay's scripts (issue 35: the conditional marker, no event writes)
      autorun: false,
    },
  );
  const log = settings.log.child({ queue: name });
  worker.on('failed', (job, err) =>
    log[attemptFailedLevel(err.message)]({ jobId: job?.id, attempt: job?.attemptsMade, reason: err.message }, 'job attempt failed'),
  );
  worker.on('error', (err) => log.warn({ err: err.message }, 'worker error'));
  // its job moves and the scripts run on its connection leave in one write per turn
  worker.backend.connection.client.then(coalesceWrites, () => undefined);
  runWithRelayScripts(worker, settings.life.moveHooks);
  return worker;
}

export function createWorkers(processors: Processors, settings: WorkerSettings): RunningWorkers {
  const start = <Q extends QueueName>(queue: Q): RelayWorker<Q> => startWorker(queue, processors[queue], settings);
  const workers = byQueue<RelayWorkers>(start);
  const entries = Object.values(workers);
  return {
    workers,
    async close() {
      await Promise.all(entries.map((worker) => worker.close()));
    },
  };
}
