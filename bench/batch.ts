/**
 * npm run bench:batch: a 10,000-line image batch through the relay built in dist/ (api and worker
 * processes), Redis, s3rver and a fast simulator on loopback. Prints the time to validate, lines
 * per second, the api's peak RSS, Redis memory per pending line, and the latency of another
 * account's synchronous requests while the batch runs. Writes bench/results/batch-<time>.json.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import OpenAI, { toFile } from 'openai';
import { Redis } from 'ioredis';
import { repoRoot } from '@relay/testkit';
import { percentile } from './load.js';
import { startBenchStack } from './stack.js';

const LINES = Number(process.env.BENCH_BATCH_LINES ?? 10_000);
const LATENCY_MS = 20;
const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

const stack = await startBenchStack();
const report: Record<string, unknown> = { at: new Date().toISOString(), lines: LINES, upstreamLatencyMs: LATENCY_MS };
const redis = new Redis(stack.redis.url);
try {
  await stack.simConfig({ SIM_LATENCY_MS: LATENCY_MS, SIM_MAX_CONCURRENT: 0 });
  const worker = await stack.start('worker', { WORKER_CONCURRENCY: '64' });
  const api = await stack.start('api');
  const base = api.ready.url!;
  const admin = async (method: string, path: string, body?: unknown) =>
    (
      await fetch(`${base}/admin${path}`, {
        method,
        headers: { authorization: 'Bearer bench-admin-token-of-at-least-32-characters', 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    ).json() as Promise<Record<string, unknown>>;
  const account = async () => {
    const id = String((await admin('POST', '/accounts', { name: `bench ${randomUUID().slice(0, 8)}` })).id); // names are unique
    await admin('POST', `/accounts/${id}/credits`, { amount: 1_000_000_000_000 });
    return { id, key: String((await admin('POST', `/accounts/${id}/keys`, { name: 'bench' })).key) };
  };
  const [bulk, interactive] = [await account(), await account()];
  const client = new OpenAI({ baseURL: `${base}/v1`, apiKey: bulk.key, maxRetries: 0 });

  const input = Array.from({ length: LINES }, (_, i) =>
    JSON.stringify({
      custom_id: `line-${i}`,
      method: 'POST',
      url: '/v1/images/generations',
      body: { model: 'vendor-gen-4-0-250828', prompt: `a lighthouse, variation ${i}` },
    }),
  ).join('\n');
  const file = await client.files.create({ file: await toFile(Buffer.from(input), 'bench.jsonl'), purpose: 'batch' });
  const usedMemory = async () => Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1]);
  const memoryBefore = await usedMemory();
  const t0 = performance.now();
  const created = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/images/generations', completion_window: '24h' });
  const validateMs = performance.now() - t0;
  console.log(`created ${created.id} in ${Math.round(validateMs)} ms`);

  // the batch runs; meanwhile another account's synchronous requests, one after another
  let rss = rssMiB(api.child.pid!);
  let memoryPeak = memoryBefore;
  let inflightPeak = 0;
  const latencies: number[] = [];
  let batch = created;
  while (!['completed', 'failed', 'expired', 'cancelled'].includes(batch.status)) {
    const s = performance.now();
    const res = await fetch(`${base}/v1/images/generations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${interactive.key}` },
      body: JSON.stringify({ model: 'vendor-gen-4-0-250828', prompt: 'me first' }),
    });
    await res.arrayBuffer();
    if (res.status === 200) latencies.push(performance.now() - s);
    rss = Math.max(rss, rssMiB(api.child.pid!));
    memoryPeak = Math.max(memoryPeak, await usedMemory());
    inflightPeak = Math.max(inflightPeak, await redis.zcard(`bench:batch:${created.id}:inflight`));
    batch = await client.batches.retrieve(created.id);
    await sleep(250);
  }
  const runSeconds = batch.completed_at! - batch.in_progress_at! || 1;
  const memoryAfter = await usedMemory();
  report.result = {
    status: batch.status,
    completed: batch.request_counts?.completed,
    failed: batch.request_counts?.failed,
    validateMs: Math.round(validateMs),
    validateLinesPerSecond: Math.round(LINES / (validateMs / 1000)),
    linesPerSecond: round(LINES / runSeconds, 1),
    apiPeakRssMiB: Math.round(rss),
    // the input waits in the store; Redis holds a bit per line, the lines fed ahead and the
    // finished lines not yet written out, so its peak is per batch, not per line
    redisPeakGrowthMiB: round((memoryPeak - memoryBefore) / 2 ** 20, 1),
    redisBytesPerLineAtPeak: round((memoryPeak - memoryBefore) / LINES, 1),
    redisGrowthAfterEndKiB: Math.round((memoryAfter - memoryBefore) / 1024),
    linesInFlightPeak: inflightPeak,
    interactiveRequests: latencies.length,
    interactiveP50Ms: Math.round(percentile(latencies, 50)),
    interactiveP95Ms: Math.round(percentile(latencies, 95)),
    interactiveMaxMs: Math.round(Math.max(...latencies)),
  };
  console.log(report.result);
  // where what stays after the end lives (ledger entries and queue events are kept by design)
  const sizes: Array<[string, number]> = [];
  for await (const keys of redis.scanStream({ match: 'bench:*', count: 1000 }) as AsyncIterable<string[]>) {
    for (const key of keys) sizes.push([key, Number(await redis.memory('USAGE', key))]);
  }
  sizes.sort((a, b) => b[1] - a[1]);
  report.largestKeysAfterEnd = Object.fromEntries(
    sizes.slice(0, 6).map(([key, bytes]) => [key.replace(/[0-9a-f]{16,}/g, '…'), `${Math.round(bytes / 1024)} KiB`]),
  );
  console.log('largest keys after the end:', report.largestKeysAfterEnd);
  await Promise.all([worker.stop(), api.stop()]);
} finally {
  redis.disconnect();
  await stack.close();
}

const dir = join(repoRoot, 'bench', 'results');
mkdirSync(dir, { recursive: true });
const out = join(dir, `batch-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
writeFileSync(out, JSON.stringify(report, null, 2));
console.log(`\na ${LINES.toLocaleString('en')}-line image batch, simulator answering in ${LATENCY_MS} ms`);
console.table([report.result]);
console.log(`written: ${out}`);
