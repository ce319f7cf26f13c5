import type { Redis } from 'ioredis';
import type { Logger } from '@relay/core';
import type { Billing } from '@relay/billing';
import type { QueueName, RelayQueue } from '@relay/jobs';
import type { Scheduler } from '@relay/scheduler';

/** What a job's life touches, the same in every process: the relay's Redis, its money, its schedule and its queues. */
export interface LifeDeps {
  redis: Redis;
  /** REDIS_PREFIX (every key under it shares one hash tag). */
  prefix: string;
  billing: Billing;
  schedulers: Record<QueueName, Scheduler>;
  queues: { [Q in QueueName]: RelayQueue<Q> };
  log: Logger;
  /**
   * Resolves once what this process wrote is on a Redis replica (@relay/core's createReplication);
   * absent where there is nothing to wait for (a single Redis).
   */
  replicated?: () => Promise<void>;
}
