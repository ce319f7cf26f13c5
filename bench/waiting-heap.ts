/**
 * What each waiting request keeps on the api's heap: two heap snapshots of the api, idle and with
 * `BENCH_HEAP_WAITING` (3,000) synchronous requests waiting on an upstream that answers in a
 * minute, and their difference per waiting request by V8's node type and name (closures, contexts,
 * objects by constructor). The snapshots stay in `BENCH_HEAP_DIR` (/tmp) for a closer look
 * (Chrome DevTools' comparison view). docs/benchmarks.md, Scale.
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { IMAGE, post } from './bodies.js';
import { benchKey, startBenchStack } from './stack.js';

const WAITING = Number(process.env.BENCH_HEAP_WAITING ?? 3_000);
const dir = join(process.env.BENCH_HEAP_DIR ?? '/tmp', `relay-heap-${Date.now()}`);
mkdirSync(dir, { recursive: true });

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
  nodes: number[];
  strings: string[];
}

/** Self size and count by type and name (strings and numbers by type alone). */
function tally(path: string) {
  const snap = JSON.parse(readFileSync(path, 'utf8')) as Snapshot;
  const fields = snap.snapshot.meta.node_fields;
  const [type, name, size] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f)) as [number, number, number];
  const types = snap.snapshot.meta.node_types[0];
  const byKind = new Map<string, { count: number; bytes: number }>();
  for (let i = 0; i < snap.nodes.length; i += fields.length) {
    const t = types[snap.nodes[i + type]!]!;
    const kind = /string|number/.test(t) ? t : `${t}: ${snap.strings[snap.nodes[i + name]!]!.slice(0, 60)}`;
    const entry = byKind.get(kind) ?? { count: 0, bytes: 0 };
    entry.count += 1;
    entry.bytes += snap.nodes[i + size]!;
    byKind.set(kind, entry);
  }
  return byKind;
}

/** The api writes a snapshot on SIGUSR2 (--heapsnapshot-signal), in pieces: it is there once it parses whole. */
async function snapshotOf(pid: number, index: number) {
  process.kill(pid, 'SIGUSR2');
  for (;;) {
    await sleep(2_000);
    const written = readdirSync(dir)
      .filter((f) => f.endsWith('.heapsnapshot'))
      .sort();
    const path = written[index - 1] && join(dir, written[index - 1]!);
    try {
      if (path) return tally(path);
    } catch {
      // not whole yet
    }
  }
}

const stack = await startBenchStack();
try {
  const worker = await stack.start('worker', { WORKER_CONCURRENCY: String(WAITING) });
  const api = await stack.start('api', {}, ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${dir}`]);
  const key = await benchKey(api);
  const send = post(`${api.ready.url}/v1/images/generations`, IMAGE, { authorization: `Bearer ${key}`, prefer: 'wait=600' });
  // a few answered first: what the first requests make once (compiled code, caches) is in both snapshots
  await stack.simConfig({ SIM_MAX_CONCURRENT: 0, SIM_LATENCY_MS: 10 });
  await Promise.all(Array.from({ length: 50 }, () => send().then((r) => r.arrayBuffer())));
  await stack.simConfig({ SIM_MAX_CONCURRENT: 0, SIM_LATENCY_MS: 60_000 });
  const idle = await snapshotOf(api.child.pid!, 1);
  const answers = Array.from({ length: WAITING }, () => send().catch(() => undefined));
  // every request admitted, dispatched and at the vendor (which holds each a minute): all of them waiting
  while ((await stack.simStats()).inflight < WAITING) await sleep(500);
  const loaded = await snapshotOf(api.child.pid!, 2);
  const rows = [...loaded].map(([kind, { count, bytes }]) => {
    const was = idle.get(kind) ?? { count: 0, bytes: 0 };
    return { kind, perRequest: (bytes - was.bytes) / WAITING, countPerRequest: (count - was.count) / WAITING };
  });
  const total = rows.reduce((sum, row) => sum + row.perRequest, 0);
  console.log(`${WAITING} waiting: ${Math.round(total)} bytes of heap per waiting request (snapshots in ${dir})`);
  for (const row of rows.sort((a, b) => b.perRequest - a.perRequest).slice(0, 40))
    console.log(row.perRequest.toFixed(0).padStart(6), row.countPerRequest.toFixed(2).padStart(6), row.kind);
  await Promise.all([worker.stop(), api.stop()]);
  await Promise.allSettled(answers);
} finally {
  await stack.close();
}
