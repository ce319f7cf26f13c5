import { DelayedError, Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import { queueConnection, type Logger } from '@relay/core';
import type { Billing } from '@relay/billing';
import { QUEUE_STREAMS, QUEUES, type QueueName, type Result } from '@relay/jobs';
import { toJobError } from './job-errors.js';
import { attemptFailedLevel } from './log-levels.js';
import type { WorkerMetrics } from './metrics.js';

export type Processor<Q extends QueueName> = (job: Job) => Promise<Result<Q>>;

export interface QueueSetup<Q extends QueueName> {
  process: Processor<Q>;
  /** Jobs this process runs at once (the upstream's capacity is the channels' leases, across all processes). */
  concurrency: number;
}

/** A queue without a processor is a compile error: every queue of the contract must be served. */
export type Processors = { [Q in QueueName]: QueueSetup<Q> };

export interface WorkerSettings {
  redisUrl: string;
  prefix: string;
  lockMs: number;
  stalledCheckMs: number;
  maxStalledCount: number;
  rateLimit: { defaultMs: number; maxMs: number };
  /** How long a job may wait in all for a channel (UPSTREAM_WAIT_MAX_MS). */
  waitMaxMs: number;
  billing: Billing;
  metrics: WorkerMetrics;
  log: Logger;
}

/**
 * A failed job is kept for JOB_KEEP_SECONDS so its error can be fetched and replayed, but its
 * request (prompt, image links, text) is no longer needed: only who asked and for which model.
 * Failures cost the client nothing, so their payloads must not cost Redis much either.
 */
async function keepOnlyWhatTheAnswerNeeds(job: Job, log: Logger) {
  const data = job.data as { meta: unknown; model?: string; request?: { model?: string } };
  // the job still answers right; only its request stays in Redis until JOB_KEEP_SECONDS
  await job
    .updateData({ meta: data.meta, model: data.model ?? data.request?.model })
    .catch((error: Error) => log.warn({ jobId: job.id, err: error.message }, 'a failed job keeps its request payload'));
}

export interface RunningWorkers {
  workers: Worker[];
  /** The queues the workers serve, by name (for other readers in the process). */
  queues: Record<QueueName, Queue>;
  close(): Promise<void>;
}

export function createWorkers(processors: Processors, settings: WorkerSettings): RunningWorkers {
  const entries = (Object.keys(QUEUES) as QueueName[]).map((name) => {
    const setup = processors[name];
    const queue = new Queue(QUEUES[name], {
      connection: queueConnection(settings.redisUrl, 'patient'),
      prefix: settings.prefix,
      streams: QUEUE_STREAMS,
    });
    const worker = new Worker(
      QUEUES[name],
      async (job: Job, token?: string) => {
        const { metrics } = settings;
        // speech jobs name their public model at the top, image jobs inside the request
        const data = job.data as { model?: string; request?: { model?: string } };
        const model = data.model ?? data.request?.model ?? 'unknown';
        if (job.attemptsStarted <= 1) metrics.jobWait.observe({ queue: name }, Math.max(0, (Date.now() - job.timestamp) / 1000));
        const timer = metrics.jobDuration.startTimer({ queue: name, model });
        try {
          const result = await setup.process(job);
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
          });
          const rateLimited = failure instanceof DelayedError;
          const final = !rateLimited && (failure instanceof UnrecoverableError || attempt >= attempts);
          timer({ outcome: rateLimited ? 'rate_limited' : final ? 'failed' : 'retried' });
          if (rateLimited) metrics.rateLimitPauses.inc({ queue: name });
          else if (!final) metrics.retries.inc({ queue: name });
          if (final) await Promise.all([settings.billing.release(job.id!), keepOnlyWhatTheAnswerNeeds(job, settings.log)]);
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
      },
    );
    const log = settings.log.child({ queue: name });
    queue.on('error', (err) => log.warn({ err: err.message }, 'queue connection error'));
    worker.on('failed', (job, err) =>
      log[attemptFailedLevel(err.message)]({ jobId: job?.id, attempt: job?.attemptsMade, reason: err.message }, 'job attempt failed'),
    );
    worker.on('error', (err) => log.warn({ err: err.message }, 'worker error'));
    return { queue, worker };
  });
  return {
    workers: entries.map((e) => e.worker),
    queues: Object.fromEntries(entries.map((e) => [e.worker.name, e.queue])) as Record<QueueName, Queue>,
    async close() {
      await Promise.all(entries.map((e) => e.worker.close()));
      await Promise.all(entries.map((e) => e.queue.close()));
    },
  };
}
