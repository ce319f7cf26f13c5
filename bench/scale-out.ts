/**
 * Scale-out (issue 24): the same total load (images, c=32, upstream 50 ms) on 1 api process and
 * spread over 4 (each caller keeps to one process, as behind a load balancer), on 1 worker and on
 * 3; then the Redis commands an image and a speech request cost. Part of npm run bench, and alone
 * as npm run bench:scaleout. With BENCH_RELAY_DIR the api and worker are another checkout's
 * dist/ (a figure from before a change; see docs/benchmarks.md).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import { repoRoot, type AppProcess } from '@relay/testkit';
import { post, relayImage, relaySpeech, VENDOR_IMAGE } from './bodies.js';
import { commandsPerRequest, commandsSent, type CommandCount } from './commandstats.js';
import { cpuOf, measure, quietMachine, round, TARGETS, type Cell } from './compare.js';
import { benchKey, relayUnderTest, startBenchStack, type BenchStack } from './stack.js';
import { startPortkey } from './peer/portkey.js';

const CONCURRENCY = 32;
const LATENCY_MS = 50;
const TOP = 8;

interface Fleet {
  apis: number;
  workers: number;
}

/** One cell: the load spread over `apis` api processes, jobs taken by `workers` workers. */
async function fleetCell(stack: BenchStack, fleet: Fleet, cellMs: number) {
  const workers: AppProcess[] = [];
  const apis: AppProcess[] = [];
  try {
    for (let i = 0; i < fleet.workers; i++) workers.push(await stack.start('worker'));
    for (let i = 0; i < fleet.apis; i++) apis.push(await stack.start('api'));
    const key = await benchKey(apis[0]!);
    const sends = apis.map((api) => relayImage(api.ready.url!, key));
    const apiNames = apis.map((_, i) => `api ${i + 1}`);
    const workerNames = workers.map((_, i) => `worker ${i + 1}`);
    const pids = {
      ...Object.fromEntries(apis.map((api, i) => [apiNames[i]!, api.child.pid!])),
      ...Object.fromEntries(workers.map((worker, i) => [workerNames[i]!, worker.child.pid!])),
      redis: stack.pids.redis,
      store: stack.pids.store,
    };
    const name = `${fleet.apis} api, ${fleet.workers} worker${fleet.workers > 1 ? 's' : ''}`;
    const cell = await measure({ name, send: (caller) => sends[caller % sends.length]!(), pids }, CONCURRENCY, cellMs);
    return {
      cell,
      row: {
        'api processes': fleet.apis,
        workers: fleet.workers,
        'req/s': cell.perSecond,
        'p99 ms': cell.p99Ms,
        ok: `${cell.ok}/${cell.requests}`,
        'api CPU ms/req': cpuOf(cell, apiNames),
        'worker CPU ms/req': cpuOf(cell, workerNames),
        'redis CPU ms/req': cpuOf(cell, ['redis']),
      },
    };
  } finally {
    await Promise.all([...apis, ...workers].map((p) => p.stop()));
  }
}

/**
 * What other api processes pay for one process's requests: four api processes, the whole load
 * sent to the first. Each of the three others spends only what an idle process does when no
 * process hears of another's jobs; when every process read every completion, each paid for all.
 */
async function crossTalk(stack: BenchStack, cellMs: number) {
  const worker = await stack.start('worker');
  const apis: AppProcess[] = [];
  try {
    for (let i = 0; i < 4; i++) apis.push(await stack.start('api'));
    const key = await benchKey(apis[0]!);
    const send = relayImage(apis[0]!.ready.url!, key);
    const idle = apis.slice(1).map((_, i) => `idle api ${i + 1}`);
    const pids = { 'api 1': apis[0]!.child.pid!, ...Object.fromEntries(apis.slice(1).map((api, i) => [idle[i]!, api.child.pid!])) };
    const cell = await measure({ name: '4 api, load on 1', send: () => send(), pids }, CONCURRENCY, cellMs);
    return { loaded: cpuOf(cell, ['api 1']), idlePerProcess: round(cpuOf(cell, idle) / idle.length, 3), requests: cell.requests };
  } finally {
    await Promise.all([...apis, worker].map((p) => p.stop()));
  }
}

/**
 * The same spread for a pure pass-through: the Portkey gateway as 1 process and as 4, the same
 * total load. Spreading a load over more processes costs each request more by itself (fewer
 * requests share each wake-up of a process's event loop); this is that cost with no relay in it.
 */
async function peerSpread(stack: BenchStack, cellMs: number) {
  const sim = stack.sim.ready.url!;
  const cells = [];
  for (const processes of [1, 4]) {
    const peers = await Promise.all(Array.from({ length: processes }, () => startPortkey()));
    try {
      const sends = peers.map((peer) =>
        post(`${peer.url}/v1/proxy/images/generations`, VENDOR_IMAGE, {
          ...peer.headers(`${sim}/api/v3`),
          authorization: 'Bearer sim-key',
        }),
      );
      const names = peers.map((_, i) => `portkey ${i + 1}`);
      const pids = Object.fromEntries(peers.map((peer, i) => [names[i]!, peer.pid]));
      const cell = await measure(
        { name: `portkey x${processes}`, send: (caller) => sends[caller % sends.length]!(), pids },
        CONCURRENCY,
        cellMs,
      );
      cells.push({ processes, 'req/s': cell.perSecond, 'CPU ms/req': cpuOf(cell, names) });
    } finally {
      await Promise.all(peers.map((peer) => peer.stop()));
    }
  }
  return { cells, ratio: round(cells[1]!['CPU ms/req'] / Math.max(0.01, cells[0]!['CPU ms/req']), 2) };
}

const summary = (count: CommandCount) => ({
  total: count.total,
  reads: count.reads,
  ok: count.ok,
  top: Object.fromEntries(count.per.slice(0, TOP)),
});

/** Redis commands per image and speech request, one api process and one worker. */
async function redisCommands(stack: BenchStack, requests: number) {
  const worker = await stack.start('worker');
  const api = await stack.start('api');
  const redis = new Redis(stack.redis.url);
  try {
    const key = await benchKey(api);
    const out: Record<string, { ran: ReturnType<typeof summary>; sent: ReturnType<typeof summary> }> = {};
    for (const [name, door] of [
      ['images', relayImage],
      ['speech', relaySpeech],
    ] as const) {
      const send = door(api.ready.url!, key);
      const sent = summary(await commandsSent(redis, send, 20));
      out[name] = { ran: summary(await commandsPerRequest(redis, send, requests, 16)), sent };
    }
    return out;
  } finally {
    redis.disconnect();
    await Promise.all([worker.stop(), api.stop()]);
  }
}

export interface ScaleOutOptions {
  cellMs: number;
  /** Requests counted for the Redis commands, per door. */
  commandRequests: number;
  /** Redis commands per image request measured before issue 24 (BENCH_COMMANDS_BEFORE), for the ratio. */
  commandsBefore?: number;
}

export async function scaleOut(stack: BenchStack, options: ScaleOutOptions) {
  await stack.simConfig({ SIM_MAX_CONCURRENT: 0, SIM_LATENCY_MS: LATENCY_MS });
  const loadAtStart: Record<string, number> = { 'api processes': await quietMachine() };
  const one = await fleetCell(stack, { apis: 1, workers: 1 }, options.cellMs);
  const fourApis = await fleetCell(stack, { apis: 4, workers: 1 }, options.cellMs);
  const talk = await crossTalk(stack, options.cellMs);
  const peer = await peerSpread(stack, options.cellMs);
  loadAtStart.workers = await quietMachine();
  // the 1 api, 1 worker cell is the baseline of both comparisons
  const threeWorkers = await fleetCell(stack, { apis: 1, workers: 3 }, options.cellMs);
  const commands = await redisCommands(stack, options.commandRequests);
  const ratio = (a: number, b: number) => round(a / Math.max(0.01, b), 2);
  return {
    relay: relayUnderTest(),
    concurrency: CONCURRENCY,
    upstreamLatencyMs: LATENCY_MS,
    cellMs: options.cellMs,
    loadAtStart,
    apiProcesses: [one.row, fourApis.row],
    apiCpuRatio: ratio(fourApis.row['api CPU ms/req'], one.row['api CPU ms/req']),
    crossTalk: talk,
    peerSpread: peer,
    workers: [one.row, threeWorkers.row],
    workerCpuRatio: ratio(threeWorkers.row['worker CPU ms/req'], one.row['worker CPU ms/req']),
    workerPerSecondRatio: ratio(threeWorkers.row['req/s'], one.row['req/s']),
    redisCommands: commands,
    commandsBefore: options.commandsBefore,
    cells: Object.fromEntries([one.cell, fourApis.cell, threeWorkers.cell].map((cell: Cell) => [cell.target, cell])),
  };
}

export type ScaleOutReport = Awaited<ReturnType<typeof scaleOut>>;

/** The tables, each figure with a line that says what it means. */
export function printScaleOut(report: ScaleOutReport): void {
  console.log(
    `\nscale-out: relay ${report.relay.dir} (${report.relay.commit}); images c=${report.concurrency}, upstream ${report.upstreamLatencyMs} ms, ${report.cellMs / 1000} s per cell; 1-minute load at the start:`,
    report.loadAtStart,
  );
  console.log('api processes: the same load on 1 api process, then spread over 4 (callers round-robin over their ports); one worker');
  console.table(report.apiProcesses);
  console.log(
    `api CPU per request, 4 processes / 1: ${report.apiCpuRatio} (target <= ${TARGETS.apiScaleOut}): what each added api process costs the fleet per request; 1.0 is flat`,
  );
  console.log(
    `4 api processes, the whole load on one: ${report.crossTalk.loaded} ms per request in it, ${report.crossTalk.idlePerProcess} ms per request in each of the 3 others (what a process pays for requests it does not serve; 0 is flat)`,
  );
  console.log(
    'a pass-through spread the same way (Portkey, 1 process and 4, the same total load): what spreading costs with no relay in it',
  );
  console.table(report.peerSpread.cells);
  console.log(`Portkey CPU per request, 4 processes / 1: ${report.peerSpread.ratio}`);
  console.log('workers: the same load on one api process, jobs taken by 1 worker, then by 3');
  console.table(report.workers);
  console.log(
    `worker CPU per request, 3 workers / 1: ${report.workerCpuRatio}; req/s, 3 workers / 1: ${report.workerPerSecondRatio} (no target: near 1 for CPU means workers do not pay for each other)`,
  );
  for (const [door, { ran, sent }] of Object.entries(report.redisCommands)) {
    console.log(
      `${door}: ${ran.total} Redis commands per request (every command Redis ran, scripts' own and periodic work in the window included; ${ran.ok} answered 200); ${sent.total} of them sent by the relay's processes (c=1); round trips (socket reads Redis made) per request: ${sent.reads} at c=1, ${ran.reads} at c=16; the top ${TOP} of each:`,
    );
    const ranTop = Object.entries(ran.top);
    const sentTop = Object.entries(sent.top);
    console.table(
      Array.from({ length: Math.max(ranTop.length, sentTop.length) }, (_, i) => ({
        'all commands': ranTop[i]?.join(' ') ?? '',
        'sent by the relay': sentTop[i]?.join(' ') ?? '',
      })),
    );
  }
  const images = report.redisCommands.images?.ran.total ?? 0;
  console.log(
    report.commandsBefore
      ? `Redis commands per image request / before (${report.commandsBefore}): ${round(images / report.commandsBefore, 2)} (target <= ${TARGETS.redisCommands})`
      : `Redis commands per image request: ${images}; the target (<= ${TARGETS.redisCommands}x before) needs BENCH_COMMANDS_BEFORE, the same figure from a before build (BENCH_RELAY_DIR)`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const stack = await startBenchStack();
  try {
    const report = await scaleOut(stack, {
      cellMs: Number(process.env.BENCH_CELL_MS ?? 10_000),
      commandRequests: Number(process.env.BENCH_REQUESTS ?? 500),
      ...(process.env.BENCH_COMMANDS_BEFORE ? { commandsBefore: Number(process.env.BENCH_COMMANDS_BEFORE) } : {}),
    });
    const dir = join(repoRoot, 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `scaleout-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    writeFileSync(file, JSON.stringify(report, null, 2));
    printScaleOut(report);
    console.log(`\nwritten: ${file}`);
  } finally {
    await stack.close();
  }
}
