import type { CatalogInput, QueueName, TuningInput } from '@relay/core';
import type { LedgerEntry } from '@relay/billing';
import type { RunningApi } from '@relay/api';
import type { FaultInput, RunningSimulator, SimCall } from '@relay/simulator';
import type { AppProcess, RedisHandle, S3Handle, SentinelSet } from '@relay/testkit';

/** The shape of the relay on loopback that startStack (stack.ts) starts, apart so its helpers need not import it. */
export type Env = Record<string, string>;

export interface StackOptions {
  simulator?: Env;
  api?: Env;
  worker?: Env;
  /** A redis-server of the stack's own, with AOF, that a test may stop and start. */
  ownRedis?: boolean;
  /** A local S3 of the stack's own that a test may stop and start. */
  ownS3?: boolean;
  /** Redis behind Sentinel: a primary, a replica and three sentinels of the stack's own (stack.sentinel fails it over). */
  sentinel?: boolean;
  /** A Redis Cluster of three masters of the stack's own (the prefix then carries a hash tag). */
  cluster?: boolean;
  /** More `host:port` entries the relay may reach on loopback (a test's webhook receiver). */
  allow?: string[];
  /** A catalog of the stack's own (RELAY_CONFIG, inline) for the api and the worker; the built-in one otherwise. */
  catalog?: unknown;
  /** The config file's limits per capability (`queues`), for the api and the worker. */
  queues?: CatalogInput['queues'];
  /** The config file's knobs (`tuning`), over the stack's own short ones, for the api and the worker. */
  tuning?: TuningInput;
  /** The built console the stack's api serves (the default looks beside the bundle and in apps/console/dist). */
  consoleDir?: string;
  /** A demo-key.json the console offers a signed-in operator, as npm start's. */
  demoKeyFile?: string;
  /** The worker, and the apps `spawn` starts, run from the bundles in dist/ (npm run build), as the Docker image runs them. */
  bundle?: boolean;
}

export interface Stack {
  url: string;
  sim: RunningSimulator;
  /** The worker process; a test that kills it may assign a spawned one here (close() stops both). */
  worker: AppProcess;
  api: RunningApi;
  redis: RedisHandle & { start?(): Promise<void> };
  /** With `sentinel: true`: the servers and sentinels behind REDIS_URL. */
  sentinel?: SentinelSet;
  s3: S3Handle;
  /** Env shared by api and worker: Redis, prefix, store, upstream. */
  env: Env;
  adminToken: string;
  admin(method: string, path: string, body?: unknown): Promise<Response>;
  /** A fresh account holding `balance` micro-units (plenty by default), with one key. */
  newKey(options?: { balance?: number; rateLimitPerMinute?: number }): Promise<{ key: string; keyId: string; accountId: string }>;
  /** The account's balance and its ledger, newest first. */
  account(accountId: string): Promise<{ balance: number; reserved: number; spent: number; ledger: LedgerEntry[] }>;
  fault(fault: FaultInput | FaultInput[]): Promise<void>;
  simStats(): Promise<{
    /** Calls that reached each capability's vendor. */
    requests: Record<QueueName, number>;
    statuses: Record<string, number>;
    inflight: number;
    maxInflight: number;
    holding: number;
    /** Summed call time, and the first call's start and last answer's end (epoch ms). */
    busyMs: number;
    firstCallAt: number | null;
    lastAnswerAt: number | null;
  }>;
  /** The simulator's latest calls, oldest first, with its own start and end times (epoch ms). */
  simCalls(): Promise<SimCall[]>;
  /** Lets the `count` longest-held calls (all by default) held by a `hold` fault go on; how many went. */
  release(count?: number): Promise<number>;
  /** Forgets what the channels' breakers counted (a test that injects failures starts from a clean slate). */
  resetBreakers(): Promise<void>;
  /** Keys under the stack's prefix and the bytes Redis holds for them (MEMORY USAGE), per-minute traffic counters aside. */
  redisFootprint(): Promise<{ keys: number; bytes: number }>;
  /** The env that gives a spawned process the stack's config file with `tuning` over the stack's own. */
  tunedWith(tuning: TuningInput): Env;
  /** Another worker or api process on the same Redis and store; stopped with the stack. */
  spawn(app: 'worker' | 'api', env?: Env): Promise<AppProcess>;
  close(): Promise<void>;
}
