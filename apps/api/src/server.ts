import { createServer } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  createBlobStore,
  createMetricsRegistry,
  createRedis,
  createReplication,
  listenOn,
  waitForRedis,
  type Catalog,
  type Logger,
} from '@relay/core';
import { createApp } from './app.js';
import { opsPaths } from './health.js';
import { createBilling } from '@relay/billing';
import { createJobLife } from '@relay/life';
import { createDoors, perQueue } from '@relay/jobs';
import { schedulerMetrics } from '@relay/scheduler';
import { backfillAccountIndex } from './auth/account-index.js';
import { createAccountsStore } from './auth/accounts.js';
import type { ApiConfig } from './config.js';
import { createLifecycle } from './jobs/lifecycle.js';
import { closeQueues, openQueues, relayQueuesOf } from './jobs/queues.js';
import { createTrafficRecorder, trafficGroups } from './stats/traffic.js';
import { createTurns } from './http/pace.js';
import { readInLine } from './http/read-line.js';

export interface RunningApi {
  url: string;
  app: ReturnType<typeof createApp>;
  /** Stops taking requests, lets in-flight ones finish within the grace period, then disconnects. */
  close(): Promise<void>;
}

/** New connections reading their first request at once, and how long one may take before the next is let in (http/read-line.ts). */
const READ_SLOTS = 64;
const READ_SLOT_MS = 100;

/** Wires the front door from its configuration; main.ts and the tests both start it here. */
export async function startApi(
  config: ApiConfig,
  catalog: Catalog,
  log: Logger,
  options: { consoleDir?: string } = {},
): Promise<RunningApi> {
  const redis = createRedis(config.REDIS_URL, 'fail-fast', 'api', (err) => log.warn({ err: err.message }, 'redis connection error'));
  await waitForRedis(redis, 30_000);
  const lifecycle = createLifecycle();
  // requests coming in and jobs' answers going out take turns: no burst holds the event loop
  const turns = createTurns(16);
  const registry = createMetricsRegistry('api');
  const replication = await createReplication(config.REDIS_URL, config.REDIS_PREFIX, log, registry);
  let schedule: ReturnType<typeof schedulerMetrics> | undefined;
  const queues = await openQueues(
    redis,
    config.REDIS_URL,
    config.REDIS_PREFIX,
    { attempts: config.tuning.jobAttempts, backoffMs: config.tuning.jobBackoffMs, keepSeconds: config.tuning.jobKeepSeconds },
    log,
    lifecycle.signal,
    turns,
    (queue, picks) => schedule?.observe(queue, picks),
    config.tuning.waitRecheckMs,
  );
  const schedulers = perQueue((name) => queues[name].scheduler);
  schedule = schedulerMetrics(registry, schedulers);
  const store = createBlobStore(config);
  const accounts = createAccountsStore(redis, config.REDIS_PREFIX);
  const billing = createBilling(redis, config.REDIS_PREFIX);
  const life = createJobLife({
    redis,
    prefix: config.REDIS_PREFIX,
    billing,
    schedulers,
    queues: relayQueuesOf(queues),
    log,
  });
  const doors = createDoors(catalog);
  const traffic = createTrafficRecorder(redis, config.REDIS_PREFIX, config.tuning.statsFlushMs, trafficGroups(doors.all));
  const app = createApp({
    config,
    catalog,
    doors,
    redis,
    replication,
    queues,
    store,
    accounts,
    billing,
    life,
    lifecycle,
    turns,
    registry,
    traffic,
    log,
    consoleDir: options.consoleDir,
  });
  const indexed = await backfillAccountIndex(redis, config.REDIS_PREFIX);
  if (indexed) log.info({ accounts: indexed }, 'accounts added to the listing index');

  // A request waits its turn before Express sees it: a burst's thousands of arrivals otherwise each
  // run Express's set-up and routing in the turn their bytes came in, unpaced. Probes and scrapes
  // skip the line (their answer is due within a timeout whatever the line).
  const paced = turns.middleware((req) => req.method === 'GET' && Object.hasOwn(opsPaths, req.url?.split('?', 1)[0] ?? ''));
  const server = createServer((req, res) => paced(req, res, () => void app(req, res)));
  // and before that, a new connection's first request is read at its turn (a burst's thousands are not parsed in one turn)
  readInLine(server, READ_SLOTS, READ_SLOT_MS);
  let draining = false;
  // A connection kept alive across the shutdown gets `Connection: close` with its next answer:
  // Node closes only the connections idle at that moment, and a client or load balancer that
  // goes on reusing one would keep this api from draining and reach it until the grace ends.
  server.prependListener('request', (_req, res) => {
    if (draining) res.shouldKeepAlive = false;
  });
  // Synchronous waits last up to WAIT_TIMEOUT_MS: sockets must stay open longer than that.
  server.requestTimeout = config.WAIT_TIMEOUT_MS + 30_000;
  server.headersTimeout = 60_000;
  const { port } = await listenOn(server, config.PORT, config.HOST, 'PORT');
  const url = `http://${config.HOST}:${port}`;
  log.info({ url }, 'api listening');

  return {
    url,
    app,
    /**
     * Stops accepting connections, lets waiting requests finish within SHUTDOWN_GRACE_MS, then
     * answers the ones still waiting with 202 and their job link (the jobs go on in the workers).
     */
    async close() {
      draining = true;
      const drained = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const graceOver = sleep(config.SHUTDOWN_GRACE_MS, undefined, { ref: false });
      await Promise.race([drained, graceOver]);
      lifecycle.stopWaiting();
      await Promise.race([drained, sleep(5_000, undefined, { ref: false })]);
      server.closeAllConnections();
      await traffic.close();
      await closeQueues(queues);
      replication.close();
      redis.disconnect();
    },
  };
}
