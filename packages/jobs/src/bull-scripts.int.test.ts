import { Queue, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, expect, test } from 'vitest';
import { z } from 'zod';
import { luaCommand, valueOf } from '@relay/core';
import { startRedis, uniqueName } from '@relay/testkit';
import { bullScripts } from './bull-marker.js';
import { movesCarryHooks, relayScripts, runWithRelayScripts, useRelayScripts } from './bull-scripts.js';

/** The relay's BullMQ scripts (bull-scripts.ts) on a real Redis, against BullMQ's own. */
const handle = await startRedis();
const redis = new Redis(handle.url);
const connection = { url: handle.url, maxRetriesPerRequest: null };
afterAll(async () => {
  redis.disconnect();
  await handle.close();
});
/** A field of a hash, read by a script: what the move hooks' riders run. */
const readField = luaCommand({
  name: 'test.bull.read-field',
  lua: "return redis.call('HGET', KEYS[1], ARGV[1])",
  keys: ['job'],
  args: ['field'],
  reply: z.string().nullable(),
});

test('every one of them is a script Redis compiles', async () => {
  const scripts = relayScripts();
  expect(scripts.length).toBe(bullScripts().length);
  for (const { name, content } of scripts) {
    await expect(redis.script('LOAD', content), name).resolves.toMatch(/^[0-9a-f]{40}$/);
  }
});

/**
 * One queue's jobs through a life of every step a relay request takes (added, taken, progress,
 * completed; one failed and retried, one delayed): the relay's scripts leave the queue's event
 * stream unwritten, BullMQ's own fill it.
 */
async function lifeOfJobs(relay: boolean) {
  const prefix = uniqueName('bull');
  const queue = new Queue(uniqueName('events'), { connection, prefix });
  const worker = new Worker(
    queue.name,
    async (job: Job) => {
      await job.updateProgress({ paid: true });
      if (job.name === 'flaky' && job.attemptsMade === 0) throw new Error('once');
      return 'done';
    },
    { connection, prefix, autorun: false },
  );
  if (relay) {
    await useRelayScripts(queue);
    runWithRelayScripts(worker);
  } else void worker.run();
  const completed = new Set<string>();
  let check = () => {};
  worker.on('completed', (job: Job) => {
    completed.add(job.id!);
    check();
  });
  const jobs = [
    await queue.add('plain', {}),
    await queue.add('flaky', {}, { attempts: 2, backoff: 0 }),
    await queue.add('later', {}, { delay: 50 }),
  ];
  await new Promise<void>((resolve) => {
    check = () => jobs.every((job) => completed.has(job.id!)) && resolve();
    check();
  });
  const events = await redis.exists(`${prefix}:${queue.name}:events`);
  const states = await Promise.all(jobs.map((job) => queue.getJobState(job.id!)));
  await worker.close();
  await queue.close();
  return { events, states };
}

test("with the relay's scripts the jobs live the same lives and no event is written; BullMQ's own write them", async () => {
  const relay = await lifeOfJobs(true);
  expect(relay.states).toEqual(['completed', 'completed', 'completed']);
  expect(relay.events).toBe(0);
  const own = await lifeOfJobs(false);
  expect(own.states).toEqual(['completed', 'completed', 'completed']);
  expect(own.events).toBe(1);
});

test('move hooks ride with each move to completed, in its script: `before` runs just before the move, `after` just after it; a failure is told neither', async () => {
  const prefix = uniqueName('bull');
  const queue = new Queue(uniqueName('completing'), { connection, prefix });
  const worker = new Worker(
    queue.name,
    async (job: Job) => {
      if (job.name === 'fails') throw new Error('no');
      return { answer: job.name };
    },
    { connection, prefix, autorun: false },
  );
  const told: Array<{ jobId: string; returnvalue: string; finishedOn: string | null }> = [];
  let check = () => {};
  const before: Array<{ jobId: string; finishedOn: string | null }> = [];
  const finishedOn = (jobId: string) => readField.step({ job: `${prefix}:${queue.name}:${jobId}` }, { field: 'finishedOn' });
  runWithRelayScripts(worker, {
    // in the same script as the move, just before it
    before: (jobId) => ({
      steps: [finishedOn(jobId)],
      told: ([read]) => void before.push({ jobId, finishedOn: valueOf(read!) as string | null }),
    }),
    // the same, just after it
    after: (jobId, returnvalue) => ({
      steps: [finishedOn(jobId)],
      told([read]) {
        told.push({ jobId, returnvalue, finishedOn: valueOf(read!) as string | null });
        check();
      },
    }),
  });
  const ended = new Set<string>();
  for (const event of ['completed', 'failed'] as const)
    worker.on(event, (job?: Job) => {
      ended.add(job!.id!);
      check();
    });
  const done = await queue.add('done', {});
  const fails = await queue.add('fails', {});
  await new Promise<void>((resolve) => {
    check = () => ended.has(done.id!) && ended.has(fails.id!) && told.length > 0 && resolve();
    check();
  });
  expect(told).toEqual([{ jobId: done.id, returnvalue: JSON.stringify({ answer: 'done' }), finishedOn: expect.stringMatching(/^\d+$/) }]);
  expect(before).toEqual([{ jobId: done.id, finishedOn: null }]);
  expect(movesCarryHooks(worker)).toBe(true);
  await worker.close();
  await queue.close();
});

test("an add given its own id leaves the queue's counter alone; one without takes its number from it, as BullMQ's own", async () => {
  const prefix = uniqueName('bull');
  const queue = new Queue(uniqueName('ids'), { connection, prefix });
  await useRelayScripts(queue);
  const counter = `${prefix}:${queue.name}:id`;
  expect((await queue.add('mine', {}, { jobId: 'img_mine' })).id).toBe('img_mine');
  expect((await queue.add('later', {}, { jobId: 'img_later', delay: 60_000 })).id).toBe('img_later');
  expect(await redis.get(counter)).toBeNull();
  expect((await queue.add('numbered', {})).id).toBe('1');
  expect((await queue.add('numbered', {}, { delay: 60_000 })).id).toBe('2');
  expect(await redis.get(counter)).toBe('2');
  await queue.close();
});
