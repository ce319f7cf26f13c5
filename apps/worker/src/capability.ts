import type { BlobStore, Catalog, FreshFile, Logger, QueueName, VendorOf } from '@relay/core';
import type { JobLife, PartsWriter } from '@relay/life';
import type { MetaJob, StoredFile } from '@relay/jobs';
import type { UpstreamCalls } from './channels/upstream-calls.js';
import type { WorkerMetrics } from './metrics.js';
import type { CopyLimits, StoreRetry } from './storage/copy-to-store.js';
import type { AdapterFactory } from './upstreams/adapters.js';
import type { Processor } from './workers.js';

/** What the worker process hands every capability's processor; each takes what it uses. */
export interface CapabilityDeps {
  catalog: Catalog;
  /** A job's begin, checkpoints, calls over, charge and stopping (@relay/life). */
  life: JobLife;
  metrics: WorkerMetrics;
  /** Upstream calls through the channels serving a model, with the capability's adapter. */
  upstream: UpstreamCalls;
  store: BlobStore;
  /** How a result link is copied into the store (cap, deadline, URL policy), its store retries counted under `queue`. */
  copyLimits(queue: QueueName): CopyLimits;
  /** How long a paid result is kept in memory and retried while the store is away, counted under `queue`. */
  storeRetry(queue: QueueName): StoreRetry;
  /** Tells a job's waiters that one of its files is stored (an image of a streamed set); `fresh`: its bytes, for a waiter whose events carry them. */
  partial(job: MetaJob, file: StoredFile, fresh?: FreshFile): Promise<void>;
  /** Where a job whose waiter streams it sends its parts as they are made (none: nobody waits for it). */
  parts(job: MetaJob, take: string): PartsWriter | undefined;
  log: Logger;
}

/**
 * What the worker adds to a capability @relay/core declares: the adapter each of its vendors'
 * channels makes, and the processor that runs its jobs. One entry per capability in
 * capabilities.ts, which must cover every one (and each entry every vendor of its capability).
 */
export interface WorkerCapability<Q extends QueueName> {
  /** Each vendor serving the capability: the adapter its channels call (a folder of upstreams/). */
  vendors: { readonly [V in VendorOf<Q>]: AdapterFactory<Q> };
  /** Runs one of its jobs: the upstream call, the copy into the store, the charge, the result. */
  processor(deps: CapabilityDeps): Processor<Q>;
  /** Work done once as the process starts, not in a job's time (loading an encoder). */
  warm?(log: Logger): void;
}
