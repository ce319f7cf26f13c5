import { byQueue, createRedis, type Logger } from '@relay/core';
import {
  QUEUE_NAMES,
  QUEUE_STREAMS,
  bullPrefix,
  jobOptions,
  openRelayQueues,
  type QueueName,
  type RelayQueue,
  type RelayQueues,
  type RetrySettings,
  useRelayScripts,
} from '@relay/jobs';
import type { Redis } from 'ioredis';
import { schedulerFor, type Dispatched, type Scheduler } from '@relay/scheduler';
import { createJobWaits, type JobWaits } from './job-waits.js';
import { createInbox, type Inbox } from './inbox.js';
import type { Turns } from '../http/pace.js';

export interface QueueHandle<Q extends QueueName = QueueName> {
  queue: RelayQueue<Q>;
  /** The queue's own connection (the fail-fast producer), for reads BullMQ has no call for. */
  redis: Redis;
  /** This process's inbox: the ends of the jobs it waits for, and only those. */
  inbox: Inbox;
  /** The requests waiting on this queue's jobs, behind one inbox listener. */
  waits: JobWaits;
  /** Who goes next: lanes and fair shares between accounts (accepted jobs wait parked until then). */
  scheduler: Scheduler;
  /** The api's paced turns: steps of many requests at once take them in order. */
  turns: Turns;
  /** How often a wait looks at its job's state itself, in case its notice was lost (`tuning.api.waitRecheckMs`). */
  recheckMs: number;
}

export type Queues = { [Q in QueueName]: QueueHandle<Q> };

/**
 * Producer side: adds go through the fail-fast connection (a 503 at once when Redis is away);
 * the inbox needs a patient connection of its own: it holds its subscription (notices, and the files
 * workers publish for its answers) across Redis outages.
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
  recheckMs = 30_000,
): Promise<Queues> {
  const prefix = bullPrefix(redisPrefix);
  const reader = createRedis(redisUrl, 'patient', 'api-inbox', (err) => log.warn({ err: err.message }, 'inbox connection error'));
  const inbox = createInbox(reader, producer, redisPrefix, log);
  await inbox.start();
  const queues = openRelayQueues(() => ({ connection: producer, prefix, defaultJobOptions: jobOptions(retry), streams: QUEUE_STREAMS }));
  // before the first add: the relay's scripts on the producer's connection (every queue shares it, and BullMQ keeps what is defined)
  await Promise.all(Object.values(queues).map((queue) => useRelayScripts(queue)));
  const entries = await Promise.all(
    QUEUE_NAMES.map(async (name) => {
      const queue: RelayQueue = queues[name];
      queue.on('error', (err) => log.warn({ err: err.message, queue: name }, 'queue connection error'));
      const scheduler = schedulerFor(producer, queue, redisPrefix, name, {
        onDispatched: (picks) => onDispatched(name, picks),
        onError: (err) => log.warn({ err: err.message, queue: name }, 'dispatch failed; the workers will dispatch again'),
      });
      return [
        name,
        { queue, redis: producer, inbox, waits: createJobWaits(inbox, stopWaiting, turns), scheduler, turns, recheckMs },
      ] as const;
    }),
  );
  return Object.fromEntries(entries) as Queues;
}

/** Each capability's BullMQ queue, typed by its capability, as @relay/life takes them. */
export const relayQueuesOf = (queues: Queues): RelayQueues =>
  byQueue<RelayQueues>(<Q extends QueueName>(name: Q): RelayQueue<Q> => queues[name].queue);

export async function closeQueues(queues: Queues) {
  // one inbox serves every queue: stopped once
  const [first] = Object.values(queues);
  await Promise.all([first?.inbox.stop(), ...Object.values(queues).map(({ queue }) => queue.close())]);
}
