import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { createBilling } from '@relay/billing';
import { runStep } from '@relay/core';
import { bullPrefix, jobOptions, newJobId } from '@relay/jobs';
import { schedulerFor } from '@relay/scheduler';

const PARKED_MS = 365 * 86_400_000;
const usedMemory = async (redis: Redis) => Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1]);

/**
 * `jobs` pending image jobs spread over `accounts` accounts, made the way admission makes them
 * (reservation, schedule entry, parked BullMQ job with a typical payload), then: Redis memory per
 * pending job, the cost of a dispatch picking among that many accounts, and of a start estimate.
 */
export async function pendingAtScale(redisUrl: string, jobs: number, accounts: number) {
  const prefix = `bench-scale-${Date.now()}`;
  const redis = new Redis(redisUrl);
  // BullMQ leaves a connection it was handed open on close(): keep it to close it here
  const queueConnection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const queue = new Queue('images', {
    connection: queueConnection,
    prefix: bullPrefix(prefix),
    defaultJobOptions: jobOptions({ attempts: 4, backoffMs: 1000, keepSeconds: 86_400 }),
  });
  let picked: string | undefined;
  const scheduler = schedulerFor(redis, queue, prefix, 'images', { onDispatched: (picks) => (picked = picks[0]?.jobId) });
  const billing = createBilling(redis, prefix);
  try {
    const ids = Array.from({ length: accounts }, (_, i) => `acct_${i.toString(16).padStart(16, '0')}`);
    for (const id of ids) await redis.hset(`${prefix}:account:${id}`, { id, name: 'bench', balance: 1e12, reserved: 0, spent: 0 });
    const before = await usedMemory(redis);
    const started = performance.now();
    for (let i = 0; i < jobs; i += 500) {
      await Promise.all(
        Array.from({ length: Math.min(500, jobs - i) }, async (_, j) => {
          const accountId = ids[(i + j) % accounts]!;
          const jobId = newJobId('img');
          await billing.reserve({
            accountId,
            keyId: 'key_0000000000000000',
            jobId,
            model: 'vendor-gen-4-0-250828',
            amount: 30_000,
            units: '1 images',
          });
          // no worker is live yet: every admission waits its turn
          await runStep(redis, scheduler.steps.admit(jobId, 'async', accountId, 1));
          const meta = {
            requestId: '1f0e2d3c-4b5a-6978-8695-a4b3c2d1e0f9',
            accountId,
            keyId: 'key_0000000000000000',
            createdAt: Date.now(),
            lane: 'async',
            cost: 1,
          };
          await queue.add(
            'generate',
            { meta, request: { model: 'vendor-gen-4-0-250828', prompt: 'a lighthouse at dusk, oil painting, warm light', image: [] } },
            { jobId, delay: PARKED_MS },
          );
        }),
      );
    }
    const admitSeconds = (performance.now() - started) / 1000;
    const bytesPerPendingJob = Math.round((await usedMemory(redis)) - before) / jobs;

    // one worker slot: every dispatch picks one job among all accounts, every finish frees it
    await scheduler.heartbeat('bench-worker', 1, 600_000, 0);
    const rounds = 1_000;
    const t0 = performance.now();
    for (let i = 0; i < rounds; i++) {
      picked = undefined;
      await scheduler.dispatch();
      if (picked) await scheduler.finished(picked);
    }
    const dispatchMs = (performance.now() - t0) / rounds;
    const t1 = performance.now();
    for (let i = 0; i < 200; i++) await scheduler.estimate('async', ids[i % accounts]!);
    const estimateMs = (performance.now() - t1) / 200;
    return {
      pendingJobs: jobs,
      accounts,
      admitSeconds: Math.round(admitSeconds),
      bytesPerPendingJob: Math.round(bytesPerPendingJob),
      redisMiB: Math.round(((await usedMemory(redis)) - before) / 2 ** 20),
      dispatchAndPromoteMs: Math.round(dispatchMs * 100) / 100,
      startEstimateMs: Math.round(estimateMs * 100) / 100,
    };
  } finally {
    await queue.obliterate({ force: true }).catch(() => undefined);
    const keys = await redis.keys(`${prefix}:*`);
    for (let i = 0; i < keys.length; i += 1000) await redis.del(...keys.slice(i, i + 1000));
    await queue.close();
    queueConnection.disconnect();
    redis.disconnect();
  }
}
