/**
 * npm run bench:fairness: the fair-scheduling scenarios at full size, against the relay built in
 * dist/ (api and worker processes), Redis, s3rver and the simulator on loopback. The upstream
 * takes 4 calls at once (leases) of 300 ms each. Prints a table and writes
 * bench/results/fairness-<time>.json.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { repoRoot, waitFor, type AppProcess } from '@relay/testkit';
import { percentile } from './load.js';
import { pendingAtScale } from './pending-at-scale.js';
import { benchConfig, startBenchStack } from './stack.js';

const SLOTS = 4;
const LATENCY_MS = 300;
const IMAGE = { model: 'vendor-gen-4-0-250828', prompt: 'fair share' };
const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

const stack = await startBenchStack();
const report: Record<string, unknown> = { at: new Date().toISOString(), slots: SLOTS, upstreamLatencyMs: LATENCY_MS };
let api: AppProcess | undefined;
let worker: AppProcess | undefined;
try {
  await stack.simConfig({ SIM_LATENCY_MS: LATENCY_MS, SIM_MAX_CONCURRENT: 0 });
  worker = await stack.start('worker', {
    RELAY_CONFIG: benchConfig({ queues: { images: { maxConcurrent: SLOTS } } }),
    WORKER_CONCURRENCY: '64',
  });
  api = await stack.start('api');
  const base = api.ready.url!;
  const admin = async (method: string, path: string, body?: unknown) =>
    (
      await fetch(`${base}/admin${path}`, {
        method,
        headers: { authorization: 'Bearer bench-admin-token-of-at-least-32-characters', 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    ).json() as Promise<Record<string, unknown>>;
  const account = async (weight?: number) => {
    const created = await admin('POST', '/accounts', { name: `bench ${randomUUID().slice(0, 8)}` }); // names are unique
    const id = String(created.id);
    await admin('POST', `/accounts/${id}/credits`, { amount: 1_000_000_000_000 });
    if (weight) await admin('PATCH', `/accounts/${id}`, { weight });
    return { id, key: String((await admin('POST', `/accounts/${id}/keys`, { name: 'bench' })).key) };
  };
  const send = (key: string, prefer?: string) =>
    fetch(`${base}/v1/images/generations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...(prefer ? { Prefer: prefer } : {}) },
      body: JSON.stringify(IMAGE),
    });
  const timed = async (key: string) => {
    const t0 = performance.now();
    const res = await send(key);
    await res.arrayBuffer();
    return { status: res.status, ms: performance.now() - t0 };
  };
  const settled = async (id: string) =>
    ((await admin('GET', `/accounts/${id}/usage?limit=1000`)).entries as Array<{ type: string; at: string }>).filter(
      (e) => e.type === 'settle',
    );
  const settledCount = async (id: string) => {
    let count = 0;
    let cursor: string | null = null;
    do {
      const page = (await admin('GET', `/accounts/${id}/usage?limit=1000${cursor ? `&cursor=${cursor}` : ''}`)) as {
        entries: Array<{ type: string }>;
        nextCursor: string | null;
      };
      count += page.entries.filter((e) => e.type === 'settle').length;
      cursor = page.entries.length === 1000 ? page.nextCursor : null;
    } while (cursor);
    return count;
  };

  /** A submits `backlog` async jobs; B sends 20 synchronous requests, `gapMs` apart. */
  async function backlogAndInteractive(backlog: number, gapMs: number) {
    const [a, b] = [await account(), await account()];
    await stack.simConfig({ SIM_LATENCY_MS: LATENCY_MS, SIM_MAX_CONCURRENT: 0 });
    const started = performance.now();
    for (let i = 0; i < backlog; i += 100) {
      await Promise.all(
        Array.from({ length: Math.min(100, backlog - i) }, () => send(a.key, 'respond-async').then((r) => r.arrayBuffer())),
      );
    }
    const submitSeconds = (performance.now() - started) / 1000;
    const interactive = [];
    for (let i = 0; i < 20; i++) {
      interactive.push(await timed(b.key));
      if (gapMs) await sleep(gapMs);
    }
    await waitFor(async () => (await settledCount(a.id)) === backlog, 900_000, "A's backlog");
    const drainSeconds = (performance.now() - started) / 1000;
    const sim = await stack.simStats();
    const ideal = ((backlog + 20) * LATENCY_MS) / SLOTS / 1000;
    return {
      backlog,
      interactiveGapMs: gapMs,
      submitSeconds: round(submitSeconds, 1),
      interactiveOk: interactive.filter((r) => r.status === 200).length,
      interactiveP50Ms: Math.round(
        percentile(
          interactive.map((r) => r.ms),
          50,
        ),
      ),
      interactiveP95Ms: Math.round(
        percentile(
          interactive.map((r) => r.ms),
          95,
        ),
      ),
      interactiveMaxMs: Math.round(Math.max(...interactive.map((r) => r.ms))),
      drainSeconds: round(drainSeconds, 1),
      drainOverIdeal: round(drainSeconds / ideal),
      upstreamUtilisation: round((sim.busyMs / (SLOTS * (sim.lastAnswerAt - sim.firstCallAt))) * 100, 1),
      upstreamMaxInflight: sim.maxInflight,
    };
  }

  report.backlog = await backlogAndInteractive(1_000, 0);
  console.log('backlog + 20 sequential interactive', report.backlog);
  report.backlogSpaced = await backlogAndInteractive(1_000, 3_000);
  console.log('backlog + 20 interactive 3 s apart', report.backlogSpaced);

  // weights: both saturating; shares counted while both still had work waiting
  {
    const [heavy, light] = [await account(2), await account(1)];
    await Promise.all(
      Array.from({ length: 300 }, (_, i) => send(i % 2 ? heavy.key : light.key, 'respond-async').then((r) => r.arrayBuffer())),
    );
    await Promise.all(
      Array.from({ length: 300 }, (_, i) => send(i % 2 ? heavy.key : light.key, 'respond-async').then((r) => r.arrayBuffer())),
    );
    await waitFor(async () => (await settledCount(light.id)) === 300, 900_000, 'both backlogs');
    const order = [
      ...(await settled(heavy.id)).map((e) => ({ who: 'heavy', at: Date.parse(e.at) })),
      ...(await settled(light.id)).map((e) => ({ who: 'light', at: Date.parse(e.at) })),
    ].sort((x, y) => x.at - y.at);
    const both = order.slice(20, 20 + 360);
    const share = both.filter((e) => e.who === 'heavy').length / both.filter((e) => e.who === 'light').length;
    report.weights = { weights: '2:1', jobsEach: 300, measuredShare: round(share) };
    console.log('weights', report.weights);
  }

  // three accounts, equal bursts of synchronous requests
  {
    const keys = [await account(), await account(), await account()];
    const runs = await Promise.all(keys.map(({ key }) => Promise.all(Array.from({ length: 60 }, () => timed(key)))));
    const p95s = runs.map((r) =>
      Math.round(
        percentile(
          r.map((x) => x.ms),
          95,
        ),
      ),
    );
    report.bursts = {
      accounts: 3,
      requestsEach: 60,
      p95Ms: p95s,
      worstOverBest: round(Math.max(...p95s) / Math.min(...p95s)),
      ok: runs.flat().filter((r) => r.status === 200).length,
    };
    console.log('bursts', report.bursts);
  }
  await Promise.all([worker.stop(), api.stop()]);
  worker = api = undefined;

  report.pendingAtScale = await pendingAtScale(stack.redis.url, 100_000, 1_000);
  console.log('pending at scale', report.pendingAtScale);
} finally {
  await Promise.all([worker?.stop(), api?.stop()]);
  await stack.close();
}

const dir = join(repoRoot, 'bench', 'results');
mkdirSync(dir, { recursive: true });
const file = join(dir, `fairness-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
writeFileSync(file, JSON.stringify(report, null, 2));
console.log('\nfair scheduling');
console.table([
  { scenario: 'backlog of 1,000 + 20 sequential interactive', ...(report.backlog as object) },
  { scenario: 'same, interactive 3 s apart', ...(report.backlogSpaced as object) },
]);
console.table([report.weights]);
console.table([report.bursts]);
console.table([report.pendingAtScale]);
console.log(`written: ${file}`);
