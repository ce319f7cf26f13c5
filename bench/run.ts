/**
 * npm run bench: the relay beside a pass-through peer (the Portkey OSS gateway) in one run, on
 * the same simulated upstream (50 ms per call), then the relay scaled out (scale-out.ts), a burst
 * and a scale test. Everything runs on loopback on this machine; the figures are those of the
 * whole system on one box, and the CPU per process says where the time goes. Prints tables; writes bench/results/<time>.json and CPU
 * profiles of the api and the worker (taken in a phase of their own, not while measuring).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { repoRoot, type AppProcess } from '@relay/testkit';
import { IMAGE, post, SPEECH, SPEECH_MODEL, VENDOR_IMAGE } from './bodies.js';
import { added, cpuOf, measure, quietMachine, round, TARGETS, type Cell, type Target } from './compare.js';
import { firstAudio, printFirstAudio, type FirstAudioReport } from './first-audio.js';
import { printTracing, tracingCost, type TracingReport } from './tracing.js';
import { runFor, runLoad } from './load.js';
import { startFloor } from './peer/floor.js';
import { startPortkey } from './peer/portkey.js';
import { profilesIn, topSelfTime } from './profile.js';
import { printScaleOut, scaleOut, type ScaleOutReport } from './scale-out.js';
import { benchConfig, benchKey, relayUnderTest, startBenchStack } from './stack.js';
import { printWaiting, waitingRuns, type WaitingReport } from './waiting.js';

const CELL_MS = Number(process.env.BENCH_CELL_MS ?? 10_000);
const LATENCY_MS = 50;
const SCALE_REQUESTS = Number(process.env.BENCH_SCALE_REQUESTS ?? 10_000);
/** The scale part's targets count only if they hold in each of this many runs. */
const SCALE_RUNS = Number(process.env.BENCH_SCALE_RUNS ?? 3);
/** BENCH_ONLY=comparison,scale (any of comparison, scaleout, profiles, burst, scale, tracing, first-audio): some parts alone, for a quick look. */
const ONLY = process.env.BENCH_ONLY?.split(',');
const want = (part: string) => !ONLY || ONLY.includes(part);
const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const resultsDir = join(repoRoot, 'bench', 'results');
const profileDir = join(resultsDir, `profiles-${stamp}`);
mkdirSync(profileDir, { recursive: true });

const stack = await startBenchStack();
const portkey = await startPortkey();
const floor = await startFloor(stack);
const report: Record<string, unknown> = {
  at: new Date().toISOString(),
  machine: { cpus: cpus().length, cpu: cpus()[0]?.model, memoryGiB: round(totalmem() / 2 ** 30), node: process.version },
  relay: relayUnderTest(),
  upstreamLatencyMs: LATENCY_MS,
  cellMs: CELL_MS,
};
const started: AppProcess[] = [];
try {
  await stack.simConfig({ SIM_LATENCY_MS: LATENCY_MS });
  const sim = stack.sim.ready.url!;
  let worker = await stack.start('worker');
  let api = await stack.start('api');
  started.push(worker, api);
  const key = await benchKey(api);
  const shared = { simulator: stack.pids.simulator, 'load generator': process.pid };
  const relayPids = () => ({ api: api.child.pid!, worker: worker.child.pid!, redis: stack.pids.redis, store: stack.pids.store, ...shared });
  const images: Record<string, Target> = {
    direct: {
      name: 'direct',
      send: post(`${sim}/api/v3/images/generations`, VENDOR_IMAGE, { authorization: 'Bearer sim-key' }),
      pids: shared,
    },
    portkey: {
      name: 'Portkey',
      send: post(`${portkey.url}/v1/proxy/images/generations`, VENDOR_IMAGE, {
        ...portkey.headers(`${sim}/api/v3`),
        authorization: 'Bearer sim-key',
      }),
      pids: { portkey: portkey.pid, ...shared },
    },
    floor: {
      name: 'floor',
      send: post(`${floor.url}/v1/images/generations`, VENDOR_IMAGE, {}),
      pids: { floor: floor.pid, store: stack.pids.store, ...shared },
    },
    relay: {
      name: 'relay',
      send: post(`${api.ready.url}/v1/images/generations`, IMAGE, { authorization: `Bearer ${key}` }),
      pids: relayPids(),
    },
  };
  const speech: Record<string, Target> = {
    direct: {
      name: 'direct',
      send: post(`${sim}/v1beta/models/gemini-2.5-flash-preview-tts:generateContent`, SPEECH, { 'x-goog-api-key': 'sim-key' }),
      pids: shared,
    },
    portkey: {
      name: 'Portkey',
      send: post(`${portkey.url}/v1/proxy/models/gemini-2.5-flash-preview-tts:generateContent`, SPEECH, {
        ...portkey.headers(`${sim}/v1beta`),
        'x-goog-api-key': 'sim-key',
      }),
      pids: { portkey: portkey.pid, ...shared },
    },
    floor: {
      name: 'floor',
      send: post(`${floor.url}/v1beta/models/gemini-2.5-flash-preview-tts:generateContent`, SPEECH, {}),
      pids: { floor: floor.pid, store: stack.pids.store, ...shared },
    },
    relay: {
      name: 'relay',
      send: post(`${api.ready.url}/v1beta/models/${SPEECH_MODEL}:generateContent`, SPEECH, { 'x-goog-api-key': key }),
      pids: relayPids(),
    },
  };
  const speechBytes = (await (await speech.relay!.send(0)).arrayBuffer()).byteLength;

  // --- the comparison: each target alone on the machine, one cell after another ---
  const cells: Record<string, Cell> = {};
  const loads: Record<string, number> = {};
  for (const [part, targets, concurrency] of !want('comparison')
    ? []
    : ([
        ['images c=64', images, 64],
        ['images c=1', images, 1],
        ['speech c=16', speech, 16],
      ] as const)) {
    loads[part] = await quietMachine();
    for (const target of Object.values(targets)) cells[`${part} ${target.name}`] = await measure(target, concurrency, CELL_MS);
  }
  const ownRelay = ['api', 'worker', 'redis'];
  const rows = (part: string) => {
    const direct = cells[`${part} direct`]!;
    return ['Portkey', 'floor', 'relay'].map((name) => {
      const cell = cells[`${part} ${name}`]!;
      const own = cpuOf(cell, name === 'relay' ? ownRelay : name === 'floor' ? ['floor'] : ['portkey']);
      return {
        part,
        target: name,
        perSecond: cell.perSecond,
        directPerSecond: direct.perSecond,
        addedP50Ms: added(cell, direct).p50Ms,
        addedP99Ms: added(cell, direct).p99Ms,
        ok: `${cell.ok}/${cell.requests}`,
        cpuMsOwn: own,
        cpuMsWithStore: round(own + (cell.cpuMsPerRequest.store ?? 0), 2),
      };
    });
  };
  const table = want('comparison') ? ['images c=64', 'images c=1', 'speech c=16'].flatMap(rows) : [];
  const pick = (part: string, target: string) => table.find((r) => r.part === part && r.target === target)!;
  const ratio = (part: string, figure: 'perSecond' | 'addedP99Ms' | 'cpuMsOwn' | 'cpuMsWithStore', peer = 'Portkey') =>
    round(pick(part, 'relay')[figure] / Math.max(0.1, pick(part, peer)[figure]), 2);
  // issue 24's targets; speech and c=1 keep issue 16's, which issue 24 does not replace
  const ratios = !want('comparison')
    ? {}
    : {
        [`images c=64: relay/Portkey req/s (target >= ${TARGETS.perSecond})`]: ratio('images c=64', 'perSecond'),
        [`images c=64: relay/Portkey added p99 (target <= ${TARGETS.addedP99})`]: ratio('images c=64', 'addedP99Ms'),
        [`images c=64: relay/Portkey CPU per request, api + worker + Redis (target <= ${TARGETS.ownCpu})`]: ratio(
          'images c=64',
          'cpuMsOwn',
        ),
        'speech c=16: relay/Portkey CPU per request, store excluded (issue 16: <= 2)': ratio('speech c=16', 'cpuMsOwn'),
        'images c=1: relay added p50 ms, store included (issue 16: <= 8)': pick('images c=1', 'relay').addedP50Ms,
        // issue 35: the relay against the least a durable relay must do (forward, copy, store, answer)
        'images c=64: relay/floor CPU per request, all processes with the store (issue 35: <= 1.25)': ratio(
          'images c=64',
          'cpuMsWithStore',
          'floor',
        ),
        'images c=64: relay/floor req/s (issue 35: >= 0.85)': ratio('images c=64', 'perSecond', 'floor'),
        'images c=64: relay/floor added p99 (issue 35: <= 1.25)': ratio('images c=64', 'addedP99Ms', 'floor'),
        'speech c=16: relay/floor CPU per request, all processes with the store (issue 35: <= 1.25)': ratio(
          'speech c=16',
          'cpuMsWithStore',
          'floor',
        ),
      };
  if (want('comparison')) report.comparison = { loadAtStart: loads, speechAnswerBytes: speechBytes, table, ratios, cells };
  await Promise.all([worker.stop(), api.stop()]);

  // --- scale-out: 1 and 4 api processes, 1 and 3 workers, Redis commands per request ---
  if (want('scaleout')) {
    report.scaleOut = await scaleOut(stack, {
      cellMs: CELL_MS,
      commandRequests: Number(process.env.BENCH_REQUESTS ?? 500),
      ...(process.env.BENCH_COMMANDS_BEFORE ? { commandsBefore: Number(process.env.BENCH_COMMANDS_BEFORE) } : {}),
    });
  }

  // --- profiles: the relay alone again, with V8's profiler on (it slows what it watches) ---
  if (want('profiles')) {
    const profiled = ['--cpu-prof', `--cpu-prof-dir=${profileDir}`];
    worker = await stack.start('worker', {}, profiled);
    api = await stack.start('api', {}, profiled);
    started.push(worker, api);
    const profKey = await benchKey(api);
    await runFor(CELL_MS, 64, post(`${api.ready.url}/v1/images/generations`, IMAGE, { authorization: `Bearer ${profKey}` }));
    await runFor(
      CELL_MS / 2,
      16,
      post(`${api.ready.url}/v1beta/models/${SPEECH_MODEL}:generateContent`, SPEECH, { 'x-goog-api-key': profKey }),
    );
    const names = { [String(api.child.pid)]: 'api', [String(worker.child.pid)]: 'worker' };
    await Promise.all([worker.stop(), api.stop()]);
    // V8 names profiles CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile
    report.profiles = Object.fromEntries(
      profilesIn(profileDir).map((file) => [names[file.split('.').at(-4) ?? ''] ?? file, { file, top: topSelfTime(file) }]),
    );
  }

  // --- burst: 2,000 at once, the upstream allows 20 calls and takes 250 ms each ---
  if (want('burst')) {
    const capacity = 20;
    await stack.simConfig({ SIM_MAX_CONCURRENT: capacity, SIM_LATENCY_MS: 250 });
    worker = await stack.start('worker', { RELAY_CONFIG: benchConfig({ queues: { images: { maxConcurrent: capacity } } }) });
    api = await stack.start('api');
    started.push(worker, api);
    const burstKey = await benchKey(api);
    const burst = await runLoad(
      2_000,
      2_000,
      post(`${api.ready.url}/v1/images/generations`, IMAGE, { authorization: `Bearer ${burstKey}`, prefer: 'wait=600' }),
    );
    const simStats = await stack.simStats();
    report.burst = {
      requests: 2_000,
      upstreamCapacity: capacity,
      upstreamLatencyMs: 250,
      successRate: round(((burst.statuses['200'] ?? 0) / 2_000) * 100, 2),
      drainSeconds: round(burst.wallMs / 1000, 2),
      idealDrainSeconds: round((2_000 * 0.25) / capacity, 2),
      upstreamUtilisation: round((simStats.busyMs / (capacity * (simStats.lastAnswerAt - simStats.firstCallAt))) * 100, 1),
      upstreamMaxInflight: simStats.maxInflight,
      upstreamRefusals: simStats.statuses['429'] ?? 0,
    };
    await Promise.all([worker.stop(), api.stop()]);
  }

  // --- scale: SCALE_REQUESTS synchronous requests waiting at once on one api process (upstream 5 s), SCALE_RUNS times ---
  if (want('scale')) report.scale = await waitingRuns(stack, SCALE_REQUESTS, SCALE_RUNS);

  // --- tracing: the relay's own CPU per job with OpenTelemetry off and on ---
  if (want('tracing')) report.tracing = await tracingCost(stack, CELL_MS);

  // --- first audio: a streamed clip's first byte through the relay, beside the vendor's first piece ---
  if (want('first-audio')) report.firstAudio = await firstAudio(stack, Number(process.env.BENCH_FIRST_AUDIO_REQUESTS ?? 50));
} finally {
  await Promise.all(started.map((p) => p.stop()));
  await portkey.stop();
  await floor.stop();
  await stack.close();
}

const file = join(resultsDir, `${stamp}.json`);
writeFileSync(file, JSON.stringify(report, null, 2));
const comparison = report.comparison as
  | {
      table: unknown[];
      ratios: Record<string, number>;
      loadAtStart: Record<string, number>;
      speechAnswerBytes: number;
      cells: Record<string, Cell>;
    }
  | undefined;
if (comparison) {
  console.log(
    `\nthe relay beside Portkey (pass-through), upstream ${LATENCY_MS} ms, ${CELL_MS / 1000} s per cell; 1-minute load at the start of each part:`,
    comparison.loadAtStart,
  );
  console.log(
    `speech answers are ${Math.round(comparison.speechAnswerBytes / 1024)} KB; "own" CPU is the gateway's processes (relay: api + worker + redis), "with store" adds the relay's durable copy`,
  );
  console.table(comparison.table);
  console.log('ratios');
  console.table(comparison.ratios);
  console.log('CPU ms per request, by process');
  console.table(Object.fromEntries(Object.entries(comparison.cells).map(([name, cell]) => [name, cell.cpuMsPerRequest])));
}
if (report.scaleOut) printScaleOut(report.scaleOut as ScaleOutReport);
if (report.burst) {
  console.log('burst');
  console.table([report.burst]);
}
if (report.scale) printWaiting(report.scale as WaitingReport);
if (report.tracing) printTracing(report.tracing as TracingReport);
if (report.firstAudio) printFirstAudio(report.firstAudio as FirstAudioReport);
for (const [name, profile] of Object.entries((report.profiles ?? {}) as Record<string, { file: string; top: unknown[] }>)) {
  console.log(`cpu profile ${name}: ${profile.file}`);
  console.table(profile.top);
}
console.log(`\nwritten: ${file}`);
