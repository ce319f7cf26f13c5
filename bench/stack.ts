import { spawnStore } from '@relay/local';
import { spawnApp, spawnRedisServer, type AppProcess, type LocalRedis } from '@relay/testkit';

export interface BenchStack {
  env: Record<string, string>;
  /** Process ids of the shared services, for CPU accounting. */
  pids: { simulator: number; store: number; redis: number };
  sim: AppProcess;
  redis: LocalRedis;
  start(app: 'api' | 'worker', env?: Record<string, string>, nodeArgs?: string[]): Promise<AppProcess>;
  simConfig(config: Record<string, number>): Promise<void>;
  simStats(): Promise<{ busyMs: number; firstCallAt: number; lastAnswerAt: number; maxInflight: number; statuses: Record<string, number> }>;
  close(): Promise<void>;
}

/** Redis, the store and the simulator as separate processes; api and worker started per phase from dist/. */
export async function startBenchStack(): Promise<BenchStack> {
  const redis = await spawnRedisServer();
  // the store in a process of its own, so that it does not share the load generator's CPU
  const s3 = await spawnStore({ bucket: 'relay' });
  const quiet = { LOG_LEVEL: 'warn', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
  const sim = await spawnApp('simulator', { ...quiet, SIM_PORT: '0', SIM_MAX_IPM: '0' }, { bundle: true });
  const env = {
    ...quiet,
    ...s3.env,
    REDIS_URL: redis.url,
    REDIS_PREFIX: 'bench',
    ARK_BASE_URL: `${sim.ready.url}/api/v3`,
    URL_ALLOWLIST: new URL(sim.ready.url!).host,
    ARK_API_KEY: 'sim-key',
    GEMINI_BASE_URL: sim.ready.url!,
    GEMINI_API_KEY: 'sim-key',
    METRICS_PORT: '0',
    ADMIN_TOKEN: 'bench-admin',
    RATE_LIMIT_PER_MINUTE: '0',
    MAX_WAIT_MS: '600000',
    PORT: '0',
  };
  const started: AppProcess[] = [];
  return {
    env,
    pids: { simulator: sim.child.pid!, store: s3.process.child.pid!, redis: redis.pid()! },
    sim,
    redis,
    async start(app, more = {}, nodeArgs = []) {
      const child = await spawnApp(app, { ...env, ...more }, { bundle: true, nodeArgs });
      started.push(child);
      return child;
    },
    async simConfig(config) {
      await fetch(`${sim.ready.url}/_sim/config`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(config),
      });
      await fetch(`${sim.ready.url}/_sim/reset`, { method: 'POST' });
    },
    async simStats() {
      return (await (await fetch(`${sim.ready.url}/_sim/stats`)).json()) as Awaited<ReturnType<BenchStack['simStats']>>;
    },
    async close() {
      await Promise.all(started.map((p) => p.stop()));
      await sim.stop();
      await s3.process.stop();
      await redis.close();
    },
  };
}

export async function benchKey(api: AppProcess): Promise<string> {
  const admin = (path: string, body: unknown) =>
    fetch(`${api.ready.url}/admin${path}`, {
      method: 'POST',
      headers: { authorization: 'Bearer bench-admin', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then((r) => r.json() as Promise<Record<string, string>>);
  const account = await admin('/accounts', { name: 'bench' });
  await admin(`/accounts/${account.id}/credits`, { amount: 1_000_000_000_000 });
  return (await admin(`/accounts/${account.id}/keys`, { name: 'bench' })).key!;
}
