/**
 * npm run bench:channels: failover figures with two upstream channels (two simulators, each its
 * own process) under steady load, with the relay's default breaker settings. Channel a takes
 * three quarters of the traffic until it starts answering 500 for good; later it recovers.
 * Prints the clients' success rate and latency before, during and after, how long until a's
 * traffic had moved to b, and how long until a recovered a was taken back. Writes
 * bench/results/channels-<time>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { repoRoot, spawnApp, waitFor } from '@relay/testkit';
import { benchKey, startBenchStack } from './stack.js';
import { percentile } from './load.js';

const LATENCY_MS = 50;
const CONCURRENCY = 16;
const PHASE_MS = Number(process.env.BENCH_CHANNEL_PHASE_MS ?? 20_000);

interface Sample {
  at: number;
  ms: number;
  status: number;
}

const stack = await startBenchStack();
const other = await spawnApp(
  'simulator',
  { LOG_LEVEL: 'warn', SIM_PORT: '0', SIM_MAX_IPM: '0', SIM_LATENCY_MS: String(LATENCY_MS) },
  { bundle: true },
);
const report: Record<string, unknown> = {
  at: new Date().toISOString(),
  upstreamLatencyMs: LATENCY_MS,
  concurrency: CONCURRENCY,
  phaseMs: PHASE_MS,
};
try {
  await stack.simConfig({ SIM_LATENCY_MS: LATENCY_MS });
  const env = {
    CHANNEL_SECRET: 'bench channel secret',
    URL_ALLOWLIST: [stack.env.URL_ALLOWLIST, new URL(other.ready.url!).host].join(','),
  };
  const worker = await stack.start('worker', { ...env, WORKER_CONCURRENCY: '64' });
  const api = await stack.start('api', env);
  const base = api.ready.url!;
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}/admin${path}`, {
      method,
      headers: { authorization: 'Bearer bench-admin-token-of-at-least-32-characters', 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<Record<string, unknown>>;
  };
  const sims = { a: stack.sim.ready.url!, b: other.ready.url! };
  await admin('POST', '/channels', { id: 'a', upstream: 'ark', baseUrl: `${sims.a}/api/v3`, apiKey: 'sim-key', weight: 3 });
  await admin('POST', '/channels', { id: 'b', upstream: 'ark', baseUrl: `${sims.b}/api/v3`, apiKey: 'sim-key', weight: 1 });
  await admin('PATCH', '/channels/ark', { disabled: true });
  const stats = async (sim: string) =>
    (await (await fetch(`${sim}/_sim/stats`)).json()) as { requests: { images: number }; statuses: Record<string, number> };
  // the worker runs with the channels once its relay_channels_version caught up with Redis's
  const redis = new Redis(stack.redis.url);
  const version = Number(await redis.get('bench:channels:version'));
  redis.disconnect();
  await waitFor(
    async () => {
      const text = await (await fetch(`${worker.ready.url}/metrics`)).text();
      return Number(/^relay_channels_version(?:\{[^}]*\})? (\d+)/m.exec(text)?.[1] ?? 0) >= version;
    },
    15_000,
    'the channels at the worker',
  );
  const key = await benchKey(api);

  // steady load until told to stop, every answer with its time
  const samples: Sample[] = [];
  let running = true;
  const caller = async () => {
    while (running) {
      const at = performance.now();
      const res = await fetch(`${base}/v1/images/generations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'vendor-gen-4-0-250828', prompt: 'a lighthouse' }),
      }).catch(() => undefined);
      await res?.arrayBuffer();
      samples.push({ at, ms: performance.now() - at, status: res?.status ?? 0 });
    }
  };
  const load = Promise.all(Array.from({ length: CONCURRENCY }, caller));

  /** Polls the simulator until `test` holds; the time it took. */
  const until = async (sim: string, test: (s: Awaited<ReturnType<typeof stats>>) => boolean, since: number) => {
    for (;;) {
      if (test(await stats(sim))) return performance.now() - since;
      await sleep(50);
    }
  };

  await sleep(PHASE_MS);
  const failedAt = performance.now();
  await fetch(`${sims.a}/_sim/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'error', api: 'images', status: 500, times: 1_000_000 }),
  });
  // traffic has moved once a sees no new call for a second
  let last = (await stats(sims.a)).requests.images;
  let lastChange = performance.now();
  while (performance.now() - lastChange < 1_000) {
    await sleep(50);
    const now = (await stats(sims.a)).requests.images;
    if (now !== last) [last, lastChange] = [now, performance.now()];
  }
  const moveMs = lastChange - failedAt;
  await sleep(Math.max(0, PHASE_MS - (performance.now() - failedAt)));

  const recoveredAt = performance.now();
  const servedBefore = (await stats(sims.a)).statuses['200'] ?? 0;
  await fetch(`${sims.a}/_sim/faults`, { method: 'DELETE' });
  const takenBackMs = await until(sims.a, (s) => (s.statuses['200'] ?? 0) > servedBefore, recoveredAt);
  await sleep(PHASE_MS / 2);
  running = false;
  await load;

  const phase = (from: number, to: number) => {
    const window = samples.filter((s) => s.at >= from && s.at < to);
    const ok = window.filter((s) => s.status === 200);
    return {
      requests: window.length,
      successRate: window.length ? Math.round((ok.length / window.length) * 10_000) / 100 : null,
      p50Ms: Math.round(
        percentile(
          ok.map((s) => s.ms),
          50,
        ),
      ),
      p99Ms: Math.round(
        percentile(
          ok.map((s) => s.ms),
          99,
        ),
      ),
      maxMs: Math.round(Math.max(...window.map((s) => s.ms))),
    };
  };
  const [aStats, bStats] = [await stats(sims.a), await stats(sims.b)];
  report.phases = {
    healthy: phase(0, failedAt),
    'a failing': phase(failedAt, recoveredAt),
    'a recovered': phase(recoveredAt, Infinity),
  };
  report.moveTrafficMs = Math.round(moveMs);
  report.takeBackMs = Math.round(takenBackMs);
  report.upstream = { a: aStats.statuses, b: bStats.statuses };
  report.channels = ((await admin('GET', '/channels')).channels as Array<Record<string, unknown>>).map(
    ({ id, state, recentCalls, recentFailureShare, latencyMs }) => ({ id, state, recentCalls, recentFailureShare, latencyMs }),
  );
  await Promise.all([worker.stop(), api.stop()]);
} finally {
  await other.stop();
  await stack.close();
}

const dir = join(repoRoot, 'bench', 'results');
mkdirSync(dir, { recursive: true });
const out = join(dir, `channels-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
writeFileSync(out, JSON.stringify(report, null, 2));
console.log(
  `\nfailover: two channels (weights 3:1), ${CONCURRENCY} callers, upstream ${LATENCY_MS} ms; a answers 500 for good, later recovers`,
);
console.table(report.phases);
console.log(
  `traffic moved off a in ${String(report.moveTrafficMs)} ms; a taken back ${String(report.takeBackMs)} ms after it recovered (cooldown 10 s, then one probe)`,
);
console.log('upstream answers:', report.upstream);
console.log(`written: ${out}`);
