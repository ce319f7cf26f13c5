/**
 * npm run bench: the relay on loopback against the simulator, in three parts (see README):
 * overhead (latency and throughput, straight to the simulator vs through the relay), burst
 * (2,000 at once against an upstream capped at 20 calls), scale (5,000 waiting requests).
 * Prints a table and writes bench/results/<time>.json, with CPU profiles of api and worker.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '@relay/testkit';
import { cpuPerRequest } from './cpu.js';
import { percentile, runLoad } from './load.js';
import { profilesIn, topSelfTime } from './profile.js';
import { benchKey, startBenchStack } from './stack.js';

const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const resultsDir = join(repoRoot, 'bench', 'results');
const profileDir = join(resultsDir, `profiles-${stamp}`);
mkdirSync(profileDir, { recursive: true });
const IMAGE = { model: 'vendor-gen-4-0-250828', prompt: 'a lighthouse at dusk' };
const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

const stack = await startBenchStack();
const report: Record<string, unknown> = {
  at: new Date().toISOString(),
  machine: { cpus: cpus().length, cpu: cpus()[0]?.model, memoryGiB: round(totalmem() / 2 ** 30), node: process.version },
};
try {
  // --- overhead: profiled api and worker, simulator without latency ---
  const profiled = ['--cpu-prof', `--cpu-prof-dir=${profileDir}`];
  let worker = await stack.start('worker', { IMAGES_CONCURRENCY: '64' }, profiled);
  let api = await stack.start('api', {}, profiled);
  const key = await benchKey(api);
  const direct = () =>
    fetch(`${stack.sim.ready.url}/api/v3/images/generations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sim-key' },
      body: JSON.stringify({ ...IMAGE, model: 'seedream-4-0-250828' }),
    });
  const relay = (base: string, prefer = '') => () =>
    fetch(`${base}/v1/images/generations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...(prefer ? { Prefer: prefer } : {}) },
      body: JSON.stringify(IMAGE),
    });
  await runLoad(200, 16, direct);
  await runLoad(200, 16, relay(api.ready.url!));

  const overhead = [];
  const pids = { api: api.child.pid!, worker: worker.child.pid!, ...stack.pids, 'load generator': process.pid };
  for (const [concurrency, total] of [[1, 300], [16, 1_500], [64, 3_000]] as const) {
    for (const [target, send] of [['simulator', direct], ['relay', relay(api.ready.url!)]] as const) {
      const { result: run, perRequestMs } = await cpuPerRequest(pids, total, () => runLoad(total, concurrency, send));
      if (target === 'relay' && concurrency === 64) report.cpuMsPerRelayRequest = perRequestMs;
      overhead.push({
        target,
        concurrency,
        requests: total,
        ok: run.statuses['200'] ?? 0,
        p50Ms: round(percentile(run.latenciesMs, 50)),
        p99Ms: round(percentile(run.latenciesMs, 99)),
        perSecond: round(total / (run.wallMs / 1000)),
      });
    }
  }
  report.overhead = overhead;
  const names = { [String(api.child.pid)]: 'api', [String(worker.child.pid)]: 'worker' };
  await Promise.all([worker.stop(), api.stop()]);
  // V8 names profiles CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile
  report.profiles = Object.fromEntries(
    profilesIn(profileDir).map((file) => [names[file.split('.').at(-4) ?? ''] ?? file, { file, top: topSelfTime(file) }]),
  );

  // --- burst: 2,000 at once, the upstream allows 20 calls and takes 250 ms each ---
  const capacity = 20;
  await stack.simConfig({ SIM_MAX_CONCURRENT: capacity, SIM_LATENCY_MS: 250 });
  worker = await stack.start('worker', { IMAGES_CONCURRENCY: '64', IMAGES_MAX_CONCURRENT: String(capacity) });
  api = await stack.start('api');
  const burst = await runLoad(2_000, 2_000, relay(api.ready.url!, 'wait=600'));
  const sim = await stack.simStats();
  report.burst = {
    requests: 2_000,
    upstreamCapacity: capacity,
    upstreamLatencyMs: 250,
    successRate: round(((burst.statuses['200'] ?? 0) / 2_000) * 100, 2),
    statuses: burst.statuses,
    drainSeconds: round(burst.wallMs / 1000, 2),
    idealDrainSeconds: round((2_000 * 0.25) / capacity, 2),
    upstreamUtilisation: round((sim.busyMs / (capacity * (sim.lastAnswerAt - sim.firstCallAt))) * 100, 1),
    upstreamMaxInflight: sim.maxInflight,
    upstreamRefusals: sim.statuses['429'] ?? 0,
  };
  await Promise.all([worker.stop(), api.stop()]);

  // --- scale: 5,000 requests waiting at once on one api process, the upstream takes 5 s ---
  await stack.simConfig({ SIM_MAX_CONCURRENT: 0, SIM_LATENCY_MS: 5_000 });
  worker = await stack.start('worker', { IMAGES_CONCURRENCY: '1000' });
  api = await stack.start('api');
  const apiPid = api.child.pid!;
  const rssMiB = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${apiPid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  const lagMs = async () => {
    const text = await (await fetch(`${api.ready.url}/metrics`)).text();
    return Number(/^nodejs_eventloop_lag_p99_seconds\S* (\S+)$/m.exec(text)?.[1] ?? Number.NaN) * 1000;
  };
  const baselineRss = rssMiB();
  let waiting = 0;
  let peakWaiting = 0;
  const samples: Array<{ waiting: number; rssMiB: number; lagP99Ms: number }> = [];
  const sampler = setInterval(() => void lagMs().then((lag) => samples.push({ waiting, rssMiB: round(rssMiB()), lagP99Ms: round(lag) })), 1_000);
  const send = relay(api.ready.url!, 'wait=600');
  const scale = await runLoad(5_000, 5_000, async () => {
    waiting += 1;
    peakWaiting = Math.max(peakWaiting, waiting);
    try {
      return await send();
    } finally {
      waiting -= 1;
    }
  });
  clearInterval(sampler);
  const plateau = samples.filter((s) => s.waiting >= 4_500);
  report.scale = {
    requests: 5_000,
    upstreamLatencyMs: 5_000,
    ok: scale.statuses['200'] ?? 0,
    peakWaiting,
    apiRssMiB: { idle: round(baselineRss), peak: Math.max(...samples.map((s) => s.rssMiB)) },
    eventLoopLagP99Ms: { plateauMax: plateau.length ? Math.max(...plateau.map((s) => s.lagP99Ms)) : null, overallMax: Math.max(...samples.map((s) => s.lagP99Ms)) },
    seconds: round(scale.wallMs / 1000, 1),
    samples,
  };
  await Promise.all([worker.stop(), api.stop()]);
} finally {
  await stack.close();
}

const file = join(resultsDir, `${stamp}.json`);
writeFileSync(file, JSON.stringify(report, null, 2));
console.log('\noverhead (image requests, closed loop)');
console.table(report.overhead);
console.log('CPU ms per relay request at concurrency 64, by process');
console.table([report.cpuMsPerRelayRequest]);
const { samples: _samples, ...scaleSummary } = report.scale as Record<string, unknown>;
console.log('burst'), console.table([report.burst]);
console.log('scale'), console.log(scaleSummary);
for (const [name, profile] of Object.entries(report.profiles as Record<string, { file: string; top: unknown[] }>)) {
  console.log(`cpu profile ${name}: ${profile.file}`);
  console.table(profile.top);
}
console.log(`\nwritten: ${file}`);
