/**
 * npm run bench:commands: Redis commands per request (INFO commandstats before and after), for
 * image and speech requests through the relay built in dist/: where the round trips go.
 */
import { Redis } from 'ioredis';
import { relayImage, relaySpeech } from './bodies.js';
import { commandsPerRequest, commandsSent } from './commandstats.js';
import { benchKey, startBenchStack } from './stack.js';

const N = Number(process.env.BENCH_REQUESTS ?? 500);
/** Issue 35's targets: what the relay's own share of a request should come to (tests/e2e/src/request-shape.int.test.ts holds today's). */
const TARGETS = { commands: 80, roundTripsAtC1: 8 };
const stack = await startBenchStack();
const redis = new Redis(stack.redis.url);
try {
  const worker = await stack.start('worker');
  const api = await stack.start('api');
  const key = await benchKey(api);
  const targets = { images: relayImage(api.ready.url!, key), speech: relaySpeech(api.ready.url!, key) };
  for (const [name, send] of Object.entries(targets)) {
    const sent = await commandsSent(redis, send, 20);
    console.log(
      `${name}: ${sent.total.toFixed(1)} commands sent to Redis per request, one at a time (c=1), in ${sent.reads} socket reads (target: ${TARGETS.roundTripsAtC1} round trips)`,
    );
    console.table(Object.fromEntries(sent.per));
    const ran = await commandsPerRequest(redis, send, N, 16, { api: api.child.pid!, worker: worker.child.pid!, redis: stack.pids.redis });
    console.log(
      `${name}: ${ran.total.toFixed(1)} commands per request (target: ${TARGETS.commands}; ${ran.seconds.toFixed(1)} s, ${ran.ok}/${N} answered 200, periodic work included); ${ran.bytes?.toRedis} bytes to Redis and ${ran.bytes?.fromRedis} back per request`,
    );
    console.table(Object.fromEntries(ran.per));
    console.log(`${name}: read and write system calls per request (c=16), by process`);
    console.table(ran.ioCalls);
  }
  await Promise.all([worker.stop(), api.stop()]);
} finally {
  redis.disconnect();
  await stack.close();
}
