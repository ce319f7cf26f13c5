import type { Redis } from 'ioredis';
import type { Billing } from '@relay/billing';
import type { BlobStore, Catalog, Logger, UrlPolicy } from '@relay/core';
import type { QueueName, RelayQueues } from '@relay/jobs';
import type { Scheduler } from '@relay/scheduler';
import type { JobLife } from '@relay/life';
import type { FileRecords } from './files/store.js';
import type { BatchRecord, BatchRecords } from './records.js';

export const BATCH_EVENTS = ['batch.completed', 'batch.failed', 'batch.cancelled', 'batch.expired'] as const;
export type BatchEvent = (typeof BATCH_EVENTS)[number];

/** What the workers' side of batches works with (runner, feeding, outcomes, finishing). */
export interface BatchContext {
  redis: Redis;
  prefix: string;
  store: BlobStore;
  billing: Billing;
  records: BatchRecords;
  files: FileRecords;
  catalog: Catalog;
  queues: RelayQueues;
  schedulers: Record<QueueName, Scheduler>;
  /** A line's job is admitted and cancelled as a request's is (@relay/life). */
  life: Pick<JobLife, 'feed' | 'cancel' | 'drop'>;
  /** Where a line's image URLs may point (the URL policy of synchronous calls). */
  urls: UrlPolicy;
  /** Lines of one batch fed into the schedule ahead of the workers (in the schedule or running). */
  ahead: number;
  /** How long a worker's hold on a batch outlives the worker (`tuning.worker.jobLockMs`: a dead worker's batch is taken over as soon as its jobs). */
  lockMs: number;
  /** Tells the account's webhook endpoints that the batch ended. */
  announce(batch: BatchRecord, event: BatchEvent): Promise<void>;
  log: Logger;
}
