import { Queue, Worker, type Job } from 'bullmq';
import { redisConnectionOptions, type Logger } from '@relay/core';
import { QUEUES, type QueueName, type Result } from '@relay/jobs';
import { toJobError } from './job-errors.js';

/** A limiter that never binds by itself: it only enables the manual pauses. */
const NO_LIMIT = 1_000_000_000;

export type Processor<Q extends QueueName> = (job: Job) => Promise<Result<Q>>;

export interface QueueSetup<Q extends QueueName> {
  process: Processor<Q>;
  concurrency: number;
}

/** A queue without a processor is a compile error: every queue of the contract must be served. */
export type Processors = { [Q in QueueName]: QueueSetup<Q> };

export interface WorkerSettings {
  redisUrl: string;
  prefix: string;
  rateLimit: { defaultMs: number; maxMs: number };
  log: Logger;
}

export interface RunningWorkers {
  workers: Worker[];
  close(): Promise<void>;
}

export function createWorkers(processors: Processors, settings: WorkerSettings): RunningWorkers {
  const entries = (Object.keys(QUEUES) as QueueName[]).map((name) => {
    const setup = processors[name];
    const queue = new Queue(QUEUES[name], { connection: redisConnectionOptions(settings.redisUrl, 'patient'), prefix: settings.prefix });
    const worker = new Worker(
      QUEUES[name],
      async (job: Job) => {
        try {
          return await setup.process(job);
        } catch (error) {
          throw await toJobError(error, {
            queue,
            attempt: job.attemptsMade + 1,
            attempts: job.opts.attempts ?? 1,
            rateLimit: settings.rateLimit,
          });
        }
      },
      {
        connection: redisConnectionOptions(settings.redisUrl, 'patient'),
        prefix: settings.prefix,
        concurrency: setup.concurrency,
        // BullMQ honours queue.rateLimit() (our pause on upstream 429s) only when a limiter is set
        limiter: { max: NO_LIMIT, duration: 60_000 },
      },
    );
    const log = settings.log.child({ queue: name });
    worker.on('failed', (job, err) => log.warn({ jobId: job?.id, attempt: job?.attemptsMade, reason: err.message }, 'job attempt failed'));
    worker.on('error', (err) => log.warn({ err: err.message }, 'worker error'));
    return { queue, worker };
  });
  return {
    workers: entries.map((e) => e.worker),
    async close() {
      await Promise.all(entries.map((e) => e.worker.close()));
      await Promise.all(entries.map((e) => e.queue.close()));
    },
  };
}
