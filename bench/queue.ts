/**
 * npm run bench:queue: what the relay's fixed pieces cost alone, with none of its own code around
 * them, against which its own share (npm run bench) is read:
 * - BullMQ as published, with the relay's job options (added with its own id, taken by a worker
 *   at concurrency 64, a 50 ms job, its end kept by age). The producer and the worker share this process; a job's end
 *   reaches its caller by the worker's own `completed` event. Redis's CPU, this process's and
 *   Redis's commands per job.
 * - A bare HTTP door (peer/door-server.ts): reads the image request, waits 50 ms, answers a small JSON. Its
 *   CPU per request at c=64.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { apiTuningSchema } from '@relay/core';
import { jobOptions } from '@relay/jobs';
import { spawnRedisServer } from '@relay/local';
import { IMAGE, post } from './bodies.js';
import { measure } from './compare.js';
import { commandStats } from './commandstats.js';
import { cpuSeconds } from './cpu.js';
import { startPeer } from './peer/spawn-peer.js';

const JOBS = Number(process.env.BENCH_QUEUE_JOBS ?? 6_000);
const CONCURRENCY = 64;
/** About the size of a relay image job's data and result. */
const DATA = {
  request: { model: 'vendor-gen-4-0-250828', prompt: 'a lighthouse at dusk', n: 1, size: '1024x1024', response_format: 'url' },
  meta: { requestId: randomUUID(), accountId: 'acct_0123456789abcdef', keyId: 'key_0123456789abcdef', reservation: 1234, at: Date.now() },
};
const RESULT = { created: 1, data: [{ url: 'http://127.0.0.1/files/img_0123456789abcdef0123.jpeg', size: '1024x1024' }] };

const redis = await spawnRedisServer();
const clients: Redis[] = [];
const client = () => {
  const made = new Redis(redis.url, { maxRetriesPerRequest: null });
  clients.push(made);
  return made;
};
const stats = client();
const tuning = apiTuningSchema.parse({});
const queue = new Queue('bench', {
  connection: client(),
  defaultJobOptions: jobOptions({ attempts: tuning.jobAttempts, backoffMs: tuning.jobBackoffMs, keepSeconds: tuning.jobKeepSeconds }),
});
const ended = new Map<string, () => void>();
const worker = new Worker(
  'bench',
  async () => {
    await sleep(50);
    return RESULT;
  },
  { connection: client(), concurrency: CONCURRENCY },
);
worker.on('completed', (job) => ended.get(job.id!)?.());

async function oneJob() {
  const id = `img_${randomUUID()}`;
  const done = new Promise<void>((resolve) => ended.set(id, resolve));
  await queue.add('images', DATA, { jobId: id });
  await done;
  ended.delete(id);
}

async function run(jobs: number) {
  let left = jobs;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (left-- > 0) await oneJob();
    }),
  );
}

try {
  await run(1_000); // warm: connections, JIT, scripts loaded
  const commandsBefore = await commandStats(stats);
  const redisBefore = cpuSeconds(redis.pid()!);
  const ownBefore = process.cpuUsage();
  const started = Date.now();
  await run(JOBS);
  const seconds = (Date.now() - started) / 1000;
  const own = process.cpuUsage(ownBefore);
  const redisMs = ((cpuSeconds(redis.pid()!) - redisBefore) / JOBS) * 1000;
  const commandsAfter = await commandStats(stats);
  const commands = Object.entries(commandsAfter).reduce((sum, [name, calls]) => sum + calls - (commandsBefore[name] ?? 0), 0) / JOBS;
  console.table({
    [`BullMQ alone, ${JOBS} jobs at c=${CONCURRENCY}, 50 ms each`]: {
      'jobs/s': Math.round(JOBS / seconds),
      'Redis CPU ms a job': Number(redisMs.toFixed(3)),
      'Node CPU ms a job (add, take, end)': Number(((own.user + own.system) / 1000 / JOBS).toFixed(3)),
      'Redis commands a job': Number(commands.toFixed(1)),
    },
  });
  const door = await startPeer('door', 'door-server.ts');
  try {
    const cell = await measure(
      { name: 'door', send: post(`${door.url}/v1/images/generations`, IMAGE, {}), pids: { door: door.pid } },
      CONCURRENCY,
      10_000,
    );
    console.table({
      [`a bare HTTP door at c=${CONCURRENCY}, 50 ms each`]: { 'req/s': cell.perSecond, 'CPU ms a request': cell.cpuMsPerRequest.door },
    });
  } finally {
    await door.stop();
  }
} finally {
  await worker.close();
  await queue.close();
  for (const made of clients) made.disconnect();
  await redis.close();
}
