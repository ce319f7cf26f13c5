/**
 * npm run bench:commands: Redis commands per request (INFO commandstats before and after), for
 * image and speech requests through the relay built in dist/: where the round trips go.
 *
 * BENCH_REDIS_WRITES=coalesce,autopipeline,plain (with BENCH_ROUNDS=3) compares how the relay's
 * commands reach Redis, the modes interleaved per round: round trips, CPU per request and req/s.
 */
import { Redis } from 'ioredis';
import { relayImage, relaySpeech } from './bodies.js';
import { commandsPerRequest, commandsSent } from './commandstats.js';
import { benchKey, startBenchStack, type BenchStack } from './stack.js';

const N = Number(process.env.BENCH_REQUESTS ?? 500);
/** Issue 35's targets: what the relay's own share of a request should come to (tests/e2e/src/request-shape.int.test.ts holds today's). */
const TARGETS = { commands: 80, roundTripsAtC1: 8 };
const MODES = (process.env.BENCH_REDIS_WRITES ?? '').split(',').filter(Boolean);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);

interface Figures {
  mode: string;
  round: number;
  target: string;
  commands: number;
  tripsAtC1: number;
  tripsAtC16: number;
  cpuMs: number;
  api: number;
  worker: number;
  redis: number;
  reqPerSec: number;
}

async function measure(stack: BenchStack, redis: Redis, mode: string | undefined, round: number, verbose: boolean): Promise<Figures[]> {
  const env: Record<string, string> = mode ? { RELAY_BENCH_REDIS_WRITES: mode } : {};
  const worker = await stack.start('worker', env);
  const api = await stack.start('api', env);
  const figures: Figures[] = [];
  try {
    const key = await benchKey(api);
    const targets = { images: relayImage(api.ready.url!, key), speech: relaySpeech(api.ready.url!, key) };
    for (const [name, send] of Object.entries(targets)) {
      const sent = await commandsSent(redis, send, 20);
      const ran = await commandsPerRequest(redis, send, N, 16, { api: api.child.pid!, worker: worker.child.pid!, redis: stack.pids.redis });
      const cpu = ran.cpuMs!;
      figures.push({
        mode: mode ?? 'default',
        round,
        target: name,
        commands: ran.total,
        tripsAtC1: sent.reads!,
        tripsAtC16: ran.reads!,
        cpuMs: Math.round((cpu.api! + cpu.worker! + cpu.redis!) * 100) / 100,
        api: cpu.api!,
        worker: cpu.worker!,
        redis: cpu.redis!,
        reqPerSec: Math.round(N / ran.seconds),
      });
      if (!verbose) {
        console.log(JSON.stringify(figures.at(-1)));
        continue;
      }
      console.log(
        `${name}: ${sent.total.toFixed(1)} commands sent to Redis per request, one at a time (c=1), in ${sent.reads} socket reads (target: ${TARGETS.roundTripsAtC1} round trips)`,
      );
      console.table(Object.fromEntries(sent.per));
      console.log(
        `${name}: ${ran.total.toFixed(1)} commands per request (target: ${TARGETS.commands}; ${ran.seconds.toFixed(1)} s, ${ran.ok}/${N} answered 200, periodic work included); ${ran.bytes?.toRedis} bytes to Redis and ${ran.bytes?.fromRedis} back per request`,
      );
      console.table(Object.fromEntries(ran.per));
      console.log(`${name}: read and write system calls per request (c=16), by process`);
      console.table(ran.ioCalls);
      console.log(`${name}: CPU ms per request (c=16), by process; ${Math.round(N / ran.seconds)} req/s`);
      console.table(cpu);
    }
  } finally {
    await Promise.all([worker.stop(), api.stop()]);
  }
  return figures;
}

const stack = await startBenchStack();
const redis = new Redis(stack.redis.url);
try {
  if (MODES.length === 0) await measure(stack, redis, undefined, 1, true);
  else {
    const all: Figures[] = [];
    for (let round = 1; round <= ROUNDS; round++) for (const mode of MODES) all.push(...(await measure(stack, redis, mode, round, false)));
    console.log(`per request, c=1 round trips from 20 requests one at a time, the rest from ${N} at c=16`);
    console.table(all.sort((a, b) => a.target.localeCompare(b.target) || a.mode.localeCompare(b.mode) || a.round - b.round));
  }
} finally {
  redis.disconnect();
  await stack.close();
}
