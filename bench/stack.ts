import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { spawnStore } from '@relay/local';
import { APP_NODE_ARGS, repoRoot, spawnApp, spawnReady, spawnRedisServer, type AppProcess, type LocalRedis } from '@relay/testkit';
import type { CatalogInput } from '@relay/core';

/**
 * BENCH_RELAY_DIR: another checkout whose api and worker run from its own dist/ (built there, with
 * its own node_modules, which the bundles load their packages from), so that a commit from before
 * a change is measured on the same Redis, store, simulator and load generator as today's.
 */
const relayDir = resolve(process.env.BENCH_RELAY_DIR ?? repoRoot);
const otherTree = relayDir !== resolve(repoRoot);

/** Which relay the api and worker are: its folder and commit (when it is a git checkout). */
export function relayUnderTest(): { dir: string; commit: string } {
  let commit = 'unknown';
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', relayDir, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    const [hash = '', subject = ''] = git('log', '-1', '--format=%h%n%s').split('\n');
    const dirty = git('status', '--porcelain', '--untracked-files=no').trim();
    commit = `${hash}${dirty ? '+changes' : ''} ${subject.length > 60 ? `${subject.slice(0, 60)}...` : subject}`;
  } catch {
    // a copy without .git (git archive): the folder alone says which it is
  }
  return { dir: relayDir, commit };
}

function startRelayApp(app: 'api' | 'worker', env: Record<string, string>, nodeArgs: string[]): Promise<AppProcess> {
  if (!otherTree) return spawnApp(app, env, { bundle: true, nodeArgs });
  const entry = join(relayDir, 'dist', `${app}.mjs`);
  for (const needed of [entry, join(relayDir, 'node_modules')])
    if (!existsSync(needed)) throw new Error(`BENCH_RELAY_DIR: ${needed} is missing (npm ci and npm run build in ${relayDir} first)`);
  // the same Node options as this checkout gives its own (npm start's, the image's)
  return spawnReady(app, [...APP_NODE_ARGS[app], ...nodeArgs, entry], env, { echo: process.env.RELAY_TEST_LOGS === '1' });
}

export interface BenchStack {
  env: Record<string, string>;
  /** Process ids of the shared services, for CPU accounting. */
  pids: { simulator: number; store: number; redis: number };
  sim: AppProcess;
  redis: LocalRedis;
  start(app: 'api' | 'worker', env?: Record<string, string>, nodeArgs?: string[]): Promise<AppProcess>;
  simConfig(config: Record<string, number>): Promise<void>;
  simStats(): Promise<{
    busyMs: number;
    firstCallAt: number;
    lastAnswerAt: number;
    inflight: number;
    maxInflight: number;
    statuses: Record<string, number>;
  }>;
  close(): Promise<void>;
}

/**
 * Redis, the store and the simulator (always this checkout's) as separate processes; api and
 * worker started per phase from dist/ (BENCH_RELAY_DIR's when set).
 */
/**
 * The bench's config file, inline: a part's own catalog sections (the built-in ones otherwise), the
 * capabilities' upstream limits it sets, a caller's `Prefer: wait` taken up to ten minutes, and no per-key request limit.
 */
export const benchConfig = ({ queues = {}, catalog = {} }: { queues?: CatalogInput['queues']; catalog?: object } = {}) =>
  JSON.stringify({ ...catalog, queues, tuning: { api: { maxWaitMs: 600_000, rateLimitPerMinute: 0 } } });

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
    ADMIN_TOKEN: 'bench-admin-token-of-at-least-32-characters',
    RELAY_CONFIG: benchConfig(),
    PORT: '0',
  };
  const started: AppProcess[] = [];
  return {
    env,
    pids: { simulator: sim.child.pid!, store: s3.process.child.pid!, redis: redis.pid()! },
    sim,
    redis,
    async start(app, more = {}, nodeArgs = []) {
      const child = await startRelayApp(app, { ...env, ...more }, nodeArgs);
      started.push(child);
      return child;
    },
    async simConfig(config) {
      const res = await fetch(`${sim.ready.url}/_sim/config`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(config),
      });
      // a setting the simulator does not take would leave the figures measured under another
      if (!res.ok) throw new Error(`the simulator refused ${JSON.stringify(config)}: ${await res.text()}`);
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
      headers: { authorization: 'Bearer bench-admin-token-of-at-least-32-characters', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then((r) => r.json() as Promise<Record<string, string>>);
  // account names are unique
  const account = await admin('/accounts', { name: `bench ${randomUUID().slice(0, 8)}` });
  await admin(`/accounts/${account.id}/credits`, { amount: 1_000_000_000_000 });
  return (await admin(`/accounts/${account.id}/keys`, { name: 'bench' })).key!;
}
