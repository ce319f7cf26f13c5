import { Redis } from 'ioredis';
import { freePort, spawnApp, waitFor, type AppProcess } from '@relay/testkit';
import type { FaultInput, SimCall } from '@relay/simulator';
import type { Stack } from './stack-types.js';

/** A simulator as its own process, on a port of its own that survives a restart. */
export interface SimProcess {
  url: string;
  port: number;
  fault(fault: FaultInput | FaultInput[]): Promise<void>;
  clear(): Promise<void>;
  stats(): Promise<{
    requests: { images: number; speech: number };
    statuses: Record<string, number>;
    inflight: number;
    maxInflight: number;
    holding: number;
  }>;
  /** The simulator's latest calls, oldest first, with its own start and end times (epoch ms). */
  calls(): Promise<SimCall[]>;
  stop(): Promise<void>;
  start(): Promise<void>;
}

export async function startSimProcess(env: Record<string, string> = {}): Promise<SimProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let app: AppProcess | undefined;
  const sim: SimProcess = {
    url,
    port,
    async fault(fault) {
      const res = await fetch(`${url}/_sim/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(fault),
      });
      if (!res.ok) throw new Error(`fault refused: ${await res.text()}`);
    },
    async clear() {
      await fetch(`${url}/_sim/reset`, { method: 'POST' });
    },
    stats: async () => (await (await fetch(`${url}/_sim/stats`)).json()) as Awaited<ReturnType<SimProcess['stats']>>,
    calls: async () => ((await (await fetch(`${url}/_sim/calls`)).json()) as { calls: SimCall[] }).calls,
    async stop() {
      await app?.stop('SIGKILL');
      app = undefined;
    },
    async start() {
      app = await spawnApp('simulator', { SIM_PORT: String(port), SIM_PUBLIC_URL: url, LOG_LEVEL: 'warn', ...env });
    },
  };
  await sim.start();
  return sim;
}

/** Waits until the worker runs with the channel list as it is now in Redis (its relay_channels_version metric). */
export async function channelsReachedWorker(stack: Stack, worker = stack.worker) {
  const redis = new Redis(stack.redis.url);
  const version = Number((await redis.get(`${stack.env.REDIS_PREFIX}:channels:version`).finally(() => redis.disconnect())) ?? 0);
  await waitFor(
    async () => {
      const text = await (await fetch(`${worker.ready.url}/metrics`)).text();
      return Number(/^relay_channels_version(?:\{[^}]*\})? (\d+)/m.exec(text)?.[1] ?? -1) >= version;
    },
    15_000,
    `channel version ${version} loaded by the worker`,
  );
}

/** Adds a channel (or changes one) through the admin API and waits until the worker has it. */
export async function admin(stack: Stack, method: string, path: string, body?: unknown) {
  const res = await stack.admin(method, path, body);
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  await channelsReachedWorker(stack);
  return res.json() as Promise<Record<string, unknown>>;
}
