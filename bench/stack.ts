import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, repoRoot, spawnApp, spawnRedisServer, waitFor, portAnswers, type AppProcess, type LocalRedis } from '@relay/testkit';

/** s3rver in a process of its own, so the store does not share the load generator's CPU. */
async function startS3Process(): Promise<{ env: Record<string, string>; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      'node_modules/s3rver/bin/s3rver.js',
      '-d',
      mkdtempSync(join(tmpdir(), 'bench-s3-')),
      '-a',
      '127.0.0.1',
      '-p',
      String(port),
      '--silent',
      '--configure-bucket',
      'relay',
    ],
    { cwd: repoRoot, stdio: 'ignore' },
  );
  await waitFor(() => portAnswers(port), 10_000, 's3rver');
  const env = {
    S3_ENDPOINT: `http://127.0.0.1:${port}`,
    S3_BUCKET: 'relay',
    S3_REGION: 'us-east-1',
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
  };
  return { env, child };
}

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
  const s3 = await startS3Process();
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
    pids: { simulator: sim.child.pid!, store: s3.child.pid!, redis: redis.pid()! },
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
      s3.child.kill();
      await redis.stop();
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
