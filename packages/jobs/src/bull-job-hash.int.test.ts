import { once } from 'node:events';
import { runSteps, valueOf } from '@relay/core';
import { Job, Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, expect, test } from 'vitest';
import { startRedis, uniqueName } from '@relay/testkit';
import { isUnderWay, progressStep } from './bull-job-hash.js';

/** What the adapter relies on in BullMQ's job hash, held against real BullMQ jobs: a BullMQ upgrade that changes it fails here. */
const handle = await startRedis();
const redis = new Redis(handle.url);
const prefix = uniqueName('bull-hash');
const connection = { url: handle.url, maxRetriesPerRequest: null };
const queue = new Queue('hash', { connection, prefix });
afterAll(async () => {
  await queue.close();
  redis.disconnect();
  await handle.close();
});

/** A worker that runs `process` for each job; closed after the job it awaits has finished. */
async function runOne(name: string, process: (job: Job) => Promise<unknown>) {
  const worker = new Worker('hash', process, { connection, prefix });
  const added = await queue.add(name, { n: 1 });
  const [finished] = (await Promise.race([once(worker, 'completed'), once(worker, 'failed')])) as [Job];
  await worker.close();
  expect(finished.id).toBe(added.id);
  return added;
}

test('a running job is under way and takes its progress as job.progress reads it back; a finished one is not under way', async () => {
  const seen: { underWay?: boolean; written?: number } = {};
  const job = await runOne('completes', async (running) => {
    seen.underWay = await isUnderWay(redis, running);
    seen.written = valueOf((await runSteps(redis, [progressStep(running, { images: ['a'] })]))[0]);
    return 'done';
  });
  expect(seen).toEqual({ underWay: true, written: 1 });
  const read = await Job.fromId(queue, job.id!);
  expect(read?.progress).toEqual({ images: ['a'] });
  expect(read?.returnvalue).toBe('done');
  expect(await isUnderWay(redis, job)).toBe(false);
});

test('a job failed for good is not under way; a removed one is neither, and its progress is not written back', async () => {
  const job = await runOne('fails', async () => {
    throw new Error('no');
  });
  expect(await queue.getJobState(job.id!)).toBe('failed');
  expect(await isUnderWay(redis, job)).toBe(false);
  await job.remove();
  expect(await isUnderWay(redis, job)).toBe(false);
  expect(valueOf((await runSteps(redis, [progressStep(job, { images: [] })]))[0])).toBe(0);
  expect(await Job.fromId(queue, job.id!)).toBeUndefined();
});

test('a job waiting for a worker is under way', async () => {
  const job = await queue.add('waits', { n: 2 });
  expect(await isUnderWay(redis, job)).toBe(true);
  await job.remove();
});
