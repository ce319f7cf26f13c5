import { Queue, type DefaultJobOptions, type Job, type QueueOptions, type Worker } from 'bullmq';
import { byQueue } from '@relay/core';
import { CAPABILITIES, type JobName, type QueueName } from './doors/capabilities.js';
import type { JobMeta } from './meta.js';

/** BullMQ keys live under `{REDIS_PREFIX}:bull:{queue}:...`, apart from the relay's own keys. */
export const bullPrefix = (redisPrefix: string) => `${redisPrefix}:bull`;

/**
 * BullMQ's own event stream per queue is read by no one (waiters hear from their inbox,
 * @relay/life's notices) yet kept 10,000 events deep by default, each completion with its result.
 * The relay's connections write none (bull-events.ts); a script run elsewhere with BullMQ's own
 * text (an operator's tool, bull-board's actions) trims it to what Redis trims cheaply (one
 * stream node). Every Queue that writes the queue's settings passes this, or the last one
 * constructed would set the default again.
 */
export const QUEUE_STREAMS: QueueOptions['streams'] = { events: { maxLen: 0 } };

/** Queue names, by name: one per capability (doors/capabilities.ts). */
export const QUEUES = Object.fromEntries(Object.values(CAPABILITIES).map((c) => [c.id, c.id])) as { readonly [Q in QueueName]: Q };
export type { QueueName };

/**
 * The typed registry producer and consumer share: what goes in, what comes out. Each capability's
 * own module adds its entry (TypeScript's declaration merging, from its job.ts), so a capability
 * needs no line in a central type:
 *
 *     declare module '../queues.js' {
 *       interface QueueContract { images: { payload: ImageJob; result: ImageJobResult } }
 *     }
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface QueueContract {}

/** Every queue's contract: a capability whose module declares none stops the build here, named. */
type Contracts = Pick<QueueContract, QueueName>;
export type Payload<Q extends QueueName> = Contracts[Q]['payload'];
export type Result<Q extends QueueName> = Contracts[Q]['result'];

/**
 * A job of one queue (any queue's, by default) as BullMQ holds it, its payload, result and name
 * typed over its whole life: a failed job keeps its payload, as a finished one does.
 */
export type RelayJob<Q extends QueueName = QueueName> = { [K in Q]: Job<Payload<K>, Result<K>, JobName<K>> }[Q];
/**
 * Any capability's job, seen as what every job has: its meta. What reads only that (a job's life,
 * its notices, its webhooks) takes this, so a job of any queue, typed or generic, is one.
 */
export type MetaJob = Job<{ meta: JobMeta }, unknown, string>;

/** Whether a job is one of `queue`'s, by the queue BullMQ holds it in: narrows it to that capability's types. */
export const isJobOf = <Q extends QueueName>(queue: Q, job: RelayJob): job is RelayJob & RelayJob<Q> => job.queueName === QUEUES[queue];

/** A worker of one capability's queue. */
export type RelayWorker<Q extends QueueName = QueueName> = { [K in Q]: Worker<Payload<K>, Result<K>, JobName<K>> }[Q];
/** Every capability's worker, by queue. */
export type RelayWorkers = { [Q in QueueName]: RelayWorker<Q> };
/** A queue of one capability, its jobs typed as RelayJob. */
export type RelayQueue<Q extends QueueName = QueueName> = { [K in Q]: Queue<Payload<K>, Result<K>, JobName<K>> }[Q];
/** Every capability's queue, by name. */
export type RelayQueues = { [Q in QueueName]: RelayQueue<Q> };

/** Opens every capability's queue, typed by its contract; `options` per queue (its connection, prefix, streams). */
export function openRelayQueues(options: (name: QueueName) => QueueOptions): RelayQueues {
  const open = <Q extends QueueName>(name: Q): RelayQueue<Q> => new Queue<Payload<Q>, Result<Q>, JobName<Q>>(QUEUES[name], options(name));
  return byQueue<RelayQueues>(open);
}

export interface RetrySettings {
  attempts: number;
  backoffMs: number;
  /** How long finished jobs (and so their results) stay fetchable. */
  keepSeconds: number;
}

/**
 * Finished jobs are kept by age, never removed on completion: the API may start waiting
 * only after a fast job has already finished, and GET /v1/jobs/{id} reads them later.
 */
export function jobOptions(settings: RetrySettings): DefaultJobOptions {
  return {
    attempts: settings.attempts,
    backoff: { type: 'exponential', delay: settings.backoffMs, jitter: 0.5 },
    removeOnComplete: { age: settings.keepSeconds },
    removeOnFail: { age: settings.keepSeconds },
    // the last attempt's stack is enough to debug; every attempt's would pile up in Redis
    stackTraceLimit: 1,
  };
}

/** Drops a cancelled job still in the queue; one a worker holds is refused by that worker (its reservation is gone). */
export async function removeIfWaiting(job: Job): Promise<void> {
  const state = await job.getState();
  if (!['waiting', 'wait', 'prioritized', 'delayed'].includes(state)) return;
  await job.remove().catch(() => undefined); // taken by a worker meanwhile: it will see the cancel
}
