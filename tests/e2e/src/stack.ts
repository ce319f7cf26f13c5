import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { createLogger, loadCatalog, VENDOR_NAMES } from '@relay/core';
import type { LedgerEntry } from '@relay/billing';
import { loadApiConfig, startApi } from '@relay/api';
import { loadSimulatorConfig, startSimulator, type RunningSimulator, type SimCall } from '@relay/simulator';
import {
  spawnApp,
  spawnRedisServer,
  startRedis,
  startRedisCluster,
  startS3,
  startSentinelSet,
  uniqueName,
  type AppProcess,
} from '@relay/testkit';
import type { Env, Stack, StackOptions } from './stack-types.js';
import { relayConfig } from './stack-config.js';

export type { Env, Stack, StackOptions } from './stack-types.js';

/**
 * A three-master cluster whose URL names a node that does not hold the prefix's slot: a client
 * that ignored the cluster would get MOVED on its first command, so a passing test proves the
 * relay speaks cluster.
 */
async function clusterSeededAwayFrom(prefix: string) {
  const cluster = await startRedisCluster();
  const probe = new Redis(cluster.nodes[0]!.url);
  try {
    const slot = Number(await probe.cluster('KEYSLOT', prefix));
    const ranges = await probe.cluster('SLOTS');
    const owner = ranges.find(([from, to]) => slot >= from && slot <= to)![2]![1];
    const seed = cluster.nodes.find((n) => n.port !== owner)!;
    return { ...cluster, url: `redis+cluster://127.0.0.1:${seed.port}` };
  } finally {
    probe.disconnect();
  }
}

/**
 * Every vendor pointed at the simulator's fake of it, by the variables the built-in catalog's
 * upstreams name (`ARK_BASE_URL`, `ARK_API_KEY`, ...): a test's own upstream of a vendor names
 * `<VENDOR>_BASE_URL` and `<VENDOR>_API_KEY` to be given them too.
 */
function simulatedVendors(sim: RunningSimulator): Env {
  return Object.fromEntries(
    VENDOR_NAMES.flatMap((vendor) => {
      const name = vendor.toUpperCase();
      return [
        [`${name}_BASE_URL`, sim.baseUrl(vendor)],
        [`${name}_API_KEY`, 'sim-key'],
      ];
    }),
  );
}

/**
 * The whole relay on loopback: simulator and api in this process, the worker as its own
 * process, Redis and an S3-compatible store from the testkit, all under a unique prefix.
 */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const prefix = options.cluster ? `{${uniqueName('relay')}}` : uniqueName('relay');
  const sentinel = options.sentinel ? await startSentinelSet() : undefined;
  const redis = sentinel
    ? { url: sentinel.url, stop: () => sentinel.close(), close: () => sentinel.close() }
    : options.cluster
      ? await clusterSeededAwayFrom(prefix)
      : options.ownRedis
        ? await spawnRedisServer({ appendonly: true })
        : await startRedis();
  const s3 = await startS3({ own: options.ownS3 });
  const sim = await startSimulator(loadSimulatorConfig({ SIM_PORT: '0', LOG_LEVEL: 'silent', ...options.simulator }));
  // unique to the stack, and as long as the api takes (32 characters at least)
  const adminToken = `${uniqueName('admin')}-${randomBytes(16).toString('hex')}`;
  const env: Env = {
    REDIS_URL: redis.url,
    REDIS_PREFIX: prefix,
    ...s3.env,
    ...simulatedVendors(sim),
    // the simulator is on loopback: the URL policy must let the relay reach it, and only it
    URL_ALLOWLIST: [new URL(sim.url).host, ...(options.allow ?? [])].join(','),
    METRICS_PORT: '0',
    CHANNEL_SECRET: 'test channel secret',
    RELAY_CONFIG: relayConfig(options, sim.url),
  };
  const worker = await spawnApp('worker', { ...env, ...options.worker }, { bundle: options.bundle });
  const log = createLogger('api', process.env.RELAY_TEST_LOGS === '1' ? 'info' : 'silent');
  const api = await startApi(
    loadApiConfig({
      ...env,
      PORT: '0',
      ADMIN_TOKEN: adminToken,
      WAIT_TIMEOUT_MS: '20000',
      ...options.api,
    }),
    loadCatalog({ RELAY_CONFIG: env.RELAY_CONFIG }),
    log,
    { consoleDir: options.consoleDir },
  );
  const admin = (method: string, path: string, body?: unknown) =>
    fetch(`${api.url}/admin${path}`, {
      method,
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const extra: AppProcess[] = [];
  let accountsMade = 0;
  return {
    url: api.url,
    sim,
    worker,
    api,
    redis,
    ...(sentinel ? { sentinel } : {}),
    s3,
    env,
    adminToken,
    admin,
    async newKey({ balance = 1_000_000_000_000, rateLimitPerMinute }: { balance?: number; rateLimitPerMinute?: number } = {}) {
      // account names are unique (a second "test" is a 409)
      const account = (await (await admin('POST', '/accounts', { name: `test ${++accountsMade}` })).json()) as { id: string };
      if (balance > 0) await admin('POST', `/accounts/${account.id}/credits`, { amount: balance, note: 'test funds' });
      const key = (await (await admin('POST', `/accounts/${account.id}/keys`, { name: 'test key', rateLimitPerMinute })).json()) as {
        id: string;
        key: string;
      };
      return { key: key.key, keyId: key.id, accountId: account.id };
    },
    async account(accountId: string) {
      const account = (await (await admin('GET', `/accounts/${accountId}`)).json()) as { balance: number; reserved: number; spent: number };
      const usage = (await (await admin('GET', `/accounts/${accountId}/usage?limit=1000`)).json()) as { entries: LedgerEntry[] };
      return { balance: account.balance, reserved: account.reserved, spent: account.spent, ledger: usage.entries };
    },
    async fault(fault) {
      const res = await fetch(`${sim.url}/_sim/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(fault),
      });
      if (!res.ok) throw new Error(`fault rejected: ${await res.text()}`);
    },
    async release(count?: number) {
      const query = count === undefined ? '' : `?count=${count}`;
      return ((await (await fetch(`${sim.url}/_sim/release${query}`, { method: 'POST' })).json()) as { released: number }).released;
    },
    async resetBreakers() {
      const client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
      try {
        for (const pattern of [`${env.REDIS_PREFIX}:chh:*`, `${env.REDIS_PREFIX}:chw:*`]) {
          for await (const keys of client.scanStream({ match: pattern, count: 100 }) as AsyncIterable<string[]>)
            if (keys.length) await client.del(...keys);
        }
      } finally {
        client.disconnect();
      }
    },
    async simStats() {
      return (await (await fetch(`${sim.url}/_sim/stats`)).json()) as Awaited<ReturnType<Stack['simStats']>>;
    },
    async simCalls() {
      return ((await (await fetch(`${sim.url}/_sim/calls`)).json()) as { calls: SimCall[] }).calls;
    },
    async redisFootprint() {
      const client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
      try {
        let keys = 0;
        let bytes = 0;
        for await (const batch of client.scanStream({ match: `${env.REDIS_PREFIX}:*`, count: 500 }) as AsyncIterable<string[]>) {
          for (const key of batch) {
            // the console's traffic counters: one hash per minute with traffic, whatever the requests
            // were (a run crossing a minute makes one), not something a request leaves behind
            if (key.includes(':stats:minute:')) continue;
            // a key that lapses within the minute (a worker's stalled-check mark, a sweep's lock) is
            // a timer's, come and gone on its own clock: nothing a request leaves stays that briefly
            const ttl = await client.pttl(key);
            if (ttl >= 0 && ttl <= 60_000) continue;
            // gone since the scan named it (-2): a key that lapsed in between, the rate limiter's
            // bucket of a millisecond under the tests' limit of a million a minute, is not there
            if (ttl === -2) continue;
            keys += 1;
            bytes += Number((await client.memory('USAGE', key, 'SAMPLES', 0)) ?? 0);
          }
        }
        return { keys, bytes };
      } finally {
        client.disconnect();
      }
    },
    tunedWith: (tuning) => ({ RELAY_CONFIG: relayConfig(options, sim.url, tuning) }),
    async spawn(app, more = {}) {
      const child = await spawnApp(
        app,
        { ...env, ...(app === 'api' ? { PORT: '0', ADMIN_TOKEN: adminToken } : options.worker), ...more },
        { bundle: options.bundle },
      );
      extra.push(child);
      return child;
    },
    async close() {
      await Promise.all(extra.map((child) => child.stop('SIGKILL')));
      await worker.stop();
      await api.close();
      await sim.close();
      await s3.close();
      await redis.close();
    },
  };
}

/** POSTs JSON to the relay with a key. */
export function postJson(url: string, body: unknown, key?: string, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export { admin, channelsReachedWorker, startSimProcess, type SimProcess } from './channel-sims.js';
export { scheduledJobs } from './schedule.js';
