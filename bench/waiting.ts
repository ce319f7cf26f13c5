import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import { performance } from 'node:perf_hooks';
import { IMAGE, postLean } from './bodies.js';
import { round, TARGETS } from './compare.js';
import { cpuPerRequest } from './cpu.js';
import { runLoad } from './load.js';
import { benchKey, type BenchStack } from './stack.js';

/** The kernel's count of connections dropped because a listener's accept queue was full (the whole machine's). */
function listenOverflows() {
  const lines = readFileSync('/proc/net/netstat', 'utf8').split('\n');
  const names = lines.find((l) => l.startsWith('TcpExt:'))?.split(' ') ?? [];
  const values = lines.filter((l) => l.startsWith('TcpExt:'))[1]?.split(' ') ?? [];
  return Number(values[names.indexOf('ListenOverflows')] ?? Number.NaN);
}

/** How long a liveness probe takes on a connection of its own, as a kubelet's does (ms; NaN if it failed). */
const probe = (url: string) =>
  new Promise<number>((resolve) => {
    const start = performance.now();
    get(`${url}/healthz`, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200 ? performance.now() - start : Number.NaN));
    }).on('error', () => resolve(Number.NaN));
  });

const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/**
 * The scale part of npm run bench: `requests` synchronous requests waiting at once on one api
 * process (upstream 5 s), with the api's RSS and event-loop p99 sampled each second.
 */
async function waitingCallers(stack: BenchStack, requests: number) {
  await stack.simConfig({ SIM_MAX_CONCURRENT: 0, SIM_LATENCY_MS: 5_000 });
  // workers enough to take every job at once: what is measured is the api holding them all
  const workerConcurrency = Math.min(requests, 5_000);
  const worker = await stack.start('worker', { WORKER_CONCURRENCY: String(workerConcurrency) });
  const api = await stack.start('api', {}, process.env.BENCH_API_NODE_ARGS?.split(' ') ?? []);
  try {
    const key = await benchKey(api);
    const rssMiB = () => rssOf(api.child.pid!);
    let workerPeak = rssOf(worker.child.pid!);
    // the event loop's p99 and where the memory is (JS heap, buffers outside it), from the api's own metrics
    const fromMetrics = async () => {
      const text = await (await fetch(`${api.ready.url}/metrics`)).text();
      const metric = (name: string) => Number(new RegExp(`^${name}\\S* (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
      return {
        lagP99Ms: round(metric('nodejs_eventloop_lag_p99_seconds') * 1000),
        heapMiB: round(metric('nodejs_heap_size_used_bytes') / 2 ** 20),
        externalMiB: round(metric('nodejs_external_memory_bytes') / 2 ** 20),
      };
    };
    const idleRss = rssMiB();
    // the api's loop-delay histogram covers the time since its last scrape: one now, so that the
    // first second measured is the callers' first, not the api's start-up and idle time before them
    const beforeArrival = await fromMetrics();
    const overflowsBefore = listenOverflows();
    let waiting = 0;
    let arrived = 0;
    let failedScrapes = 0;
    const samples: Array<{ waiting: number; arrived: number; rssMiB: number; lagP99Ms: number; heapMiB: number; externalMiB: number }> = [];
    const probesMs: number[] = [];
    const sampler = setInterval(() => {
      workerPeak = Math.max(workerPeak, rssOf(worker.child.pid!));
      // a new connection, like a kubelet's: it waits in the api's read line behind the burst's own
      void probe(`${api.ready.url}`).then((ms) => probesMs.push(ms));
      // a scrape that fails (a kept-alive socket the api closed as it was reused) is counted, not fatal
      void fromMetrics().then(
        (read) => samples.push({ waiting, arrived, rssMiB: round(rssMiB()), ...read }),
        () => (failedScrapes += 1),
      );
    }, 1_000);
    const send = postLean(`${api.ready.url}/v1/images/generations`, IMAGE, { authorization: `Bearer ${key}`, prefer: 'wait=600' });
    const pids = { api: api.child.pid!, worker: worker.child.pid!, 'load generator': process.pid };
    const { result: scale, perRequestMs } = await cpuPerRequest(pids, () =>
      runLoad(requests, requests, async () => {
        waiting += 1;
        arrived += 1;
        try {
          return await send();
        } finally {
          waiting -= 1;
        }
      }),
    );
    clearInterval(sampler);
    const overflows = listenOverflows() - overflowsBefore;
    const arriving = samples.filter((s) => s.arrived < requests || s.waiting >= requests * 0.9);
    const ok = scale.statuses['200'] ?? 0;
    const whileWaiting = Math.max(...arriving.map((s) => s.rssMiB));
    const atPeak = arriving.find((s) => s.rssMiB === whileWaiting);
    const lagWhileArriving = arriving.length ? Math.max(...arriving.map((s) => s.lagP99Ms)) : null;
    return {
      requests,
      upstreamLatencyMs: 5_000,
      ok,
      statuses: scale.statuses,
      firstErrors: scale.firstErrors,
      // while (nearly) all of them wait, and over the whole run (answers going out included)
      apiRssMiB: { idle: round(idleRss), whileWaiting, peak: Math.max(...samples.map((s) => s.rssMiB)) },
      // of the RSS while they wait: the JS heap in use and the memory outside it (buffers)
      apiAtPeakMiB: atPeak && { heapUsed: atPeak.heapMiB, external: atPeak.externalMiB },
      workerRssMiBPeak: round(workerPeak),
      workerConcurrency,
      eventLoopLagP99Ms: {
        beforeArrival: beforeArrival.lagP99Ms,
        whileArriving: lagWhileArriving,
        overall: Math.max(...samples.map((s) => s.lagP99Ms)),
      },
      seconds: round(scale.wallMs / 1000, 1),
      // the slowest of the probes sent once a second on connections of their own (NaN: one failed)
      probeWorstMs: round(probesMs.reduce((worst, ms) => (Number.isNaN(ms) || Number.isNaN(worst) ? Number.NaN : Math.max(worst, ms)), 0)),
      failedScrapes,
      listenOverflows: overflows,
      cpuMsPerRequest: perRequestMs,
      targets: {
        [`all ${requests} answered 200`]: ok === requests,
        [`event-loop p99 while they arrive and wait < ${TARGETS.waitingLagP99Ms} ms`]:
          lagWhileArriving !== null && lagWhileArriving < TARGETS.waitingLagP99Ms,
        [`api RSS while they wait < ${TARGETS.waitingRssMiB} MB`]: whileWaiting < TARGETS.waitingRssMiB,
      },
      samples,
    };
  } finally {
    await Promise.all([worker.stop(), api.stop()]);
  }
}

type WaitingRun = Awaited<ReturnType<typeof waitingCallers>>;

/**
 * `runs` runs of waitingCallers, each with a fresh api and worker: the targets hold only if they
 * hold in every run (one good run on a shared box proves little).
 */
export async function waitingRuns(stack: BenchStack, requests: number, runs: number) {
  const each: WaitingRun[] = [];
  for (let run = 0; run < runs; run += 1) each.push(await waitingCallers(stack, requests));
  const targetNames = Object.keys(each[0]?.targets ?? {});
  return {
    requests,
    runs: each,
    heldInEveryRun: Object.fromEntries(targetNames.map((name) => [name, each.every((r) => r.targets[name] === true)])),
  };
}

export type WaitingReport = Awaited<ReturnType<typeof waitingRuns>>;

export function printWaiting(report: WaitingReport) {
  console.log(`\nscale: ${report.requests} synchronous requests waiting at once on one api process, ${report.runs.length} runs`);
  console.table(
    report.runs.map((r, i) => ({
      run: i + 1,
      '200s': r.ok,
      'api RSS idle MB': r.apiRssMiB.idle,
      'api RSS waiting MB': r.apiRssMiB.whileWaiting,
      'api RSS peak MB': r.apiRssMiB.peak,
      'heap used MB': r.apiAtPeakMiB?.heapUsed,
      'loop p99 start-up ms': r.eventLoopLagP99Ms.beforeArrival,
      'loop p99 arriving ms': r.eventLoopLagP99Ms.whileArriving,
      'loop p99 overall ms': r.eventLoopLagP99Ms.overall,
      'worker RSS MB': r.workerRssMiBPeak,
      seconds: r.seconds,
      'probe worst ms': r.probeWorstMs,
      'listen overflows': r.listenOverflows,
      'api CPU ms/request': r.cpuMsPerRequest.api,
      'load generator CPU ms/request': r.cpuMsPerRequest['load generator'],
    })),
  );
  for (const [i, r] of report.runs.entries()) if (Object.keys(r.firstErrors).length) console.log(`run ${i + 1} errors`, r.firstErrors);
  console.log('targets, held in every run');
  console.table(report.heldInEveryRun);
}
