import { createLogger, loadCatalog } from '@relay/core';
import { loadApiConfig, startApi, type RunningApi } from '@relay/api';
import { loadSimulatorConfig, startSimulator, type FaultInput, type RunningSimulator } from '@relay/simulator';
import { spawnApp, startRedis, startS3, uniqueName, type AppProcess, type RedisHandle, type S3Handle } from '@relay/testkit';

type Env = Record<string, string>;

export interface StackOptions {
  simulator?: Env;
  api?: Env;
  worker?: Env;
}

export interface Stack {
  url: string;
  sim: RunningSimulator;
  worker: AppProcess;
  api: RunningApi;
  redis: RedisHandle;
  s3: S3Handle;
  /** Env shared by api and worker: Redis, prefix, store, upstream. */
  env: Env;
  adminToken: string;
  admin(method: string, path: string, body?: unknown): Promise<Response>;
  /** A fresh account with one key; returns the secret. */
  newKey(): Promise<{ key: string; keyId: string; accountId: string }>;
  fault(fault: FaultInput | FaultInput[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * The whole relay on loopback: simulator and api in this process, the worker as its own
 * process, Redis and an S3-compatible store from the testkit, all under a unique prefix.
 */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const redis = await startRedis();
  const s3 = await startS3();
  const sim = await startSimulator(loadSimulatorConfig({ SIM_PORT: '0', LOG_LEVEL: 'silent', ...options.simulator }));
  const adminToken = uniqueName('admin');
  const env: Env = {
    REDIS_URL: redis.url,
    REDIS_PREFIX: uniqueName('relay'),
    ...s3.env,
    ARK_BASE_URL: `${sim.url}/api/v3`,
    ARK_API_KEY: 'sim-key',
    GEMINI_BASE_URL: sim.url,
    GEMINI_API_KEY: 'sim-key',
    UPSTREAM_RATE_LIMIT_DELAY_MS: '200',
    JOB_BACKOFF_MS: '50',
  };
  const worker = await spawnApp('worker', { ...env, ...options.worker });
  const log = createLogger('api', process.env.RELAY_TEST_LOGS === '1' ? 'info' : 'silent');
  const api = await startApi(
    loadApiConfig({ ...env, PORT: '0', ADMIN_TOKEN: adminToken, WAIT_TIMEOUT_MS: '20000', ...options.api }),
    loadCatalog({}),
    log,
  );
  const admin = (method: string, path: string, body?: unknown) =>
    fetch(`${api.url}/admin${path}`, {
      method,
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  return {
    url: api.url,
    sim,
    worker,
    api,
    redis,
    s3,
    env,
    adminToken,
    admin,
    async newKey() {
      const account = (await (await admin('POST', '/accounts', { name: 'test' })).json()) as { id: string };
      const key = (await (await admin('POST', `/accounts/${account.id}/keys`, { name: 'test key' })).json()) as { id: string; key: string };
      return { key: key.key, keyId: key.id, accountId: account.id };
    },
    async fault(fault) {
      const res = await fetch(`${sim.url}/_sim/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(fault) });
      if (!res.ok) throw new Error(`fault rejected: ${await res.text()}`);
    },
    async close() {
      await worker.stop();
      await api.close();
      await sim.close();
      await s3.stop();
      await redis.stop();
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
