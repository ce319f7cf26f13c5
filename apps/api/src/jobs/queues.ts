import { Queue, QueueEvents } from 'bullmq';
import { queueConnection, type Logger } from '@relay/core';
import { QUEUES, bullPrefix, jobOptions, type QueueName, type RetrySettings } from '@relay/jobs';
import type { Redis } from 'ioredis';
import { schedulerFor, type Dispatched, type Scheduler } from '@relay/scheduler';
import { createJobWaits, type JobWaits } from './job-waits.js';
import type { Turns } from '../http/pace.js';

export interface QueueHandle {
  queue: Queue;
  /** One QueueEvents per queue per process, shared by every waiting request. */
  events: QueueEvents;
  /** The requests waiting on this queue's jobs, behind one set of event listeners. */
  waits: JobWaits;
  /** Who goes next: lanes and fair shares between accounts (accepted jobs wait parked until then). */
  scheduler: Scheduler;
  /** The api's paced turns: steps of many requests at once take them in order. */
  turns: Turns;
}

export type Queues = Record<QueueName, QueueHandle>;

/**
 * Producer side: adds go through the fail-fast connection (a 503 at once when Redis is away);
 * the events stream needs a patient connection of its own because it blocks on XREAD.
 */
export async function openQueues(
  producer: Redis,
  redisUrl: string,
  redisPrefix: string,
  retry: RetrySettings,
  log: Logger,
  /** Aborted when the api stops waiting for jobs (shutdown): every wait ends at once. */
  stopWaiting: AbortSignal,
  /** Where a finished job's waiters are woken, a few per turn of the event loop. */
  turns: Turns,
  /** Told of every job this process hands to the workers (metrics). */
  onDispatched: (queue: QueueName, picks: Dispatched[]) => void = () => {},
): Promise<Queues> {
  const prefix = bullPrefix(redisPrefix);
  const entries = await Promise.all(
    (Object.keys(QUEUES) as QueueName[]).map(async (name) => {
      const queue = new Queue(QUEUES[name], { connection: producer, prefix, defaultJobOptions: jobOptions(retry) });
      const events = new QueueEvents(QUEUES[name], { connection: queueConnection(redisUrl, 'patient'), prefix });
      queue.on('error', (err) => log.warn({ err: err.message, queue: name }, 'queue connection error'));
      events.on('error', (err) => log.warn({ err: err.message, queue: name }, 'queue events connection error'));
      await events.waitUntilReady();
      const scheduler = schedulerFor(producer, queue, redisPrefix, name, {
        onDispatched: (picks) => onDispatched(name, picks),
        onError: (err) => log.warn({ err: err.message, queue: name }, 'dispatch failed; the workers will dispatch again'),
      });
      return [name, { queue, events, waits: createJobWaits(events, stopWaiting, turns), scheduler, turns }] as const;
    }),
  );
  return Object.fromEntries(entries) as Queues;
}

export async function closeQueues(queues: Queues) {
  await Promise.all(Object.values(queues).flatMap(({ queue, events }) => [events.close(), queue.close()]));
}
