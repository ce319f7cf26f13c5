import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { runStep } from '@relay/core';
import { afterAll, beforeEach, expect, test } from 'vitest';
import type { Lane } from '@relay/jobs';
import { startRedis, uniqueName, type RedisHandle } from '@relay/testkit';
import { estimateStart } from './estimate.js';
import { createScheduler, type Dispatched, type Scheduler } from './scheduler.js';

/** The scheduler against a real Redis and a real BullMQ queue; the "workers" are this test, by hand. */
let queue: Queue;
let scheduler: Scheduler;
let prefix: string;
let dispatched: Dispatched[];
const PARKED_MS = 365 * 86_400_000;

const handle: RedisHandle = await startRedis();
const redis = new Redis(handle.url);
afterAll(async () => {
  await queue?.close();
  redis.disconnect();
  await handle.close();
});

beforeEach(async () => {
  await queue?.close();
  prefix = uniqueName('sched');
  queue = new Queue('images', { connection: new Redis(handle.url, { maxRetriesPerRequest: null }), prefix: `${prefix}:bull` });
  dispatched = [];
  scheduler = createScheduler(redis, queue, {
    prefix,
    queueName: 'images',
    quantum: 1,
    onDispatched: (p) => dispatched.push(...p),
  });
});

/** The admission step as the api sends it (@relay/life's admission), on its own. */
const admission = (jobId: string, lane: Lane, accountId: string, cost: number) =>
  runStep(redis, scheduler.steps.admit(jobId, lane, accountId, cost));

let counter = 0;
/**
 * What admission does with a job that waits its turn: admitted, then added parked. Made while no
 * worker is live or something is pending, so that it waits, as these tests expect.
 */
async function admit(accountId: string, lane: Lane = 'async', cost = 1) {
  const jobId = `img_${String(counter++).padStart(32, '0')}`;
  expect(await admission(jobId, lane, accountId, cost)).toBe('queued');
  await queue.add('generate', { accountId }, { jobId, delay: PARKED_MS });
  return jobId;
}

/** What a worker does when a job ends, then the dispatch that frees. */
async function finish(jobId: string) {
  await (await queue.getJob(jobId))!.remove();
  await scheduler.finished(jobId);
  await scheduler.dispatch();
}

const order = () => dispatched.map((d) => d.accountId);
const setAccount = (id: string, fields: Record<string, number>) => redis.hset(`${prefix}:account:${id}`, fields);

test('nothing is handed out without a live worker; the window then holds what the workers run', async () => {
  const ids = await Promise.all([admit('a'), admit('a'), admit('a')]);
  await scheduler.dispatch();
  expect(dispatched).toEqual([]);
  expect(await queue.getJobState(ids[0])).toBe('delayed');

  await scheduler.heartbeat('w1', 2, 10_000, 0);
  await scheduler.dispatch();
  expect(dispatched.map((d) => d.jobId)).toEqual(ids.slice(0, 2));
  expect(await queue.getJobCounts('wait', 'delayed')).toEqual({ wait: 2, delayed: 1 });

  await finish(ids[0]);
  expect(dispatched.map((d) => d.jobId)).toEqual(ids);
});

test('accounts take turns in a lane; one account alone gets every slot', async () => {
  for (let i = 0; i < 4; i++) await admit('a');
  for (let i = 0; i < 2; i++) await admit('b');
  await scheduler.heartbeat('w1', 1, 10_000, 0);
  await scheduler.dispatch();
  while (dispatched.length < 6) await finish(dispatched.at(-1)!.jobId);
  expect(order()).toEqual(['a', 'b', 'a', 'b', 'a', 'a']);
});

test('a higher lane goes first; a lower lane takes every slot the higher ones leave free', async () => {
  const batchJobs = [await admit('a', 'batch'), await admit('a', 'batch')];
  await scheduler.heartbeat('w1', 1, 10_000, 0);
  await scheduler.dispatch();
  expect(dispatched.map((d) => d.jobId)).toEqual([batchJobs[0]]);
  const interactive = await admit('b', 'interactive');
  await admit('c', 'async');
  await finish(batchJobs[0]!);
  await finish(dispatched.at(-1)!.jobId);
  await finish(dispatched.at(-1)!.jobId);
  expect(dispatched.map((d) => d.lane)).toEqual(['batch', 'interactive', 'async', 'batch']);
  expect(dispatched[1]!.jobId).toBe(interactive);
});

test('weights share the slots 2:1, in cost units', async () => {
  await setAccount('heavy', { weight: 2 });
  for (let i = 0; i < 30; i++) await Promise.all([admit('heavy'), admit('light')]);
  await scheduler.heartbeat('w1', 1, 10_000, 0);
  await scheduler.dispatch();
  while (dispatched.length < 30) await finish(dispatched.at(-1)!.jobId);
  const heavy = order().filter((a) => a === 'heavy').length;
  expect(heavy).toBe(20);
});

test('an image set of 15 weighs 15 images: the other account sends 15 single images meanwhile', async () => {
  await admit('sets', 'async', 15);
  await admit('sets', 'async', 15);
  for (let i = 0; i < 20; i++) await admit('singles');
  await scheduler.heartbeat('w1', 1, 10_000, 0);
  await scheduler.dispatch();
  while (dispatched.length < 22) await finish(dispatched.at(-1)!.jobId);
  const secondSet = order().lastIndexOf('sets');
  expect(
    order()
      .slice(0, secondSet)
      .filter((a) => a === 'singles').length,
  ).toBeGreaterThanOrEqual(14);
});

test('an account at its cap on calls in flight waits; the others use the slots', async () => {
  await setAccount('capped', { maxInFlight: 1 });
  for (let i = 0; i < 4; i++) await admit('capped');
  for (let i = 0; i < 4; i++) await admit('free');
  await scheduler.heartbeat('w1', 4, 10_000, 0);
  await scheduler.dispatch();
  expect(order().filter((a) => a === 'capped')).toHaveLength(1);
  expect(order().filter((a) => a === 'free')).toHaveLength(3);
});

test('a cancelled pending job is never handed out; a pick whose job is not added yet is promoted once it is', async () => {
  const gone = await admit('a');
  expect(await scheduler.cancel(gone)).toBe(true);
  await (await queue.getJob(gone))!.remove();
  // admitted to wait, then dispatched before its parked add lands (admission order races the dispatcher)
  const late = `img_${'f'.repeat(32)}`;
  expect(await admission(late, 'async', 'a', 1)).toBe('queued');
  await scheduler.heartbeat('w1', 2, 10_000, 0);
  await scheduler.dispatch();
  expect(dispatched.map((d) => d.jobId)).toEqual([late]);
  await queue.add('generate', {}, { jobId: late, delay: PARKED_MS });
  await redis.zadd(`${prefix}:sched:images:dispatching`, 0, late); // as if picked long ago
  await scheduler.recover();
  expect(await queue.getJobState(late)).toBe('waiting');
  expect(await scheduler.cancel(late)).toBe(false);
});

test('the estimate of a new job counts its own lane and account, not every backlog', async () => {
  for (let i = 0; i < 55; i++) await admit('bulk', 'async');
  await scheduler.heartbeat('w1', 1, 10_000, 0);
  await scheduler.dispatch();
  for (let i = 0; i < 5; i++) await finish(dispatched[i]!.jobId); // a pace to judge by
  const keys = scheduler.keys;
  const interactive = await estimateStart(redis, keys, 1, 'interactive', 'someone');
  const behindBulk = await estimateStart(redis, keys, 1, 'async', 'bulk');
  expect(interactive.position).toBeLessThanOrEqual(1);
  expect(behindBulk.position).toBeGreaterThanOrEqual(49);
  expect(behindBulk.startsInMs).toBeGreaterThan(interactive.startsInMs!);
  const newcomer = await estimateStart(redis, keys, 1, 'async', 'newcomer');
  expect(newcomer.position).toBeLessThan(5);
});

test('admission hands a job out at once only while nothing is pending and the window has room', async () => {
  const id = (n: number) => `img_${String(9_000 + n).padStart(32, '0')}`;
  // no live worker: no room, so the job waits its turn
  expect(await admission(id(0), 'interactive', 'a', 1)).toBe('queued');
  await scheduler.cancel(id(0));

  await scheduler.heartbeat('w1', 2, 10_000, 0);
  expect(await admission(id(1), 'interactive', 'a', 1)).toBe('started');
  // repeated while the window still has room: not counted twice, and told it holds its place (its job goes to the workers)
  expect(await admission(id(1), 'interactive', 'a', 1)).toBe('running');
  expect((await scheduler.stats()).running.get('a')).toEqual({ count: 1, cost: 1 });
  // an account at its cap waits even with room
  await setAccount('b', { maxInFlight: 1 });
  expect(await admission(id(2), 'async', 'b', 1)).toBe('started');
  expect(await admission(id(3), 'async', 'b', 1)).toBe('queued');
  // something pending: nobody jumps it, though the window (2) has room after a finish
  await scheduler.finished(id(1));
  expect(await admission(id(4), 'interactive', 'c', 1)).toBe('queued');
  // the same id twice is not admitted twice, running or pending
  expect(await admission(id(2), 'async', 'b', 1)).toBe('running');
  expect(await admission(id(3), 'async', 'b', 1)).toBe('already');
  const stats = await scheduler.stats();
  expect(stats.running.get('b')).toEqual({ count: 1, cost: 1 });
  expect(stats.pending.async.get('b')?.count).toBe(1);
  expect(stats.pending.interactive.get('c')?.count).toBe(1);
  // a job started at admission needs no promotion: it is not counted as dispatching
  expect(stats.dispatching).toBe(0);
});

test('a started admission whose job never reached BullMQ is given up by recover(), freeing its place', async () => {
  await scheduler.heartbeat('w1', 1, 10_000, 0);
  const lost = `img_${String(9_100).padStart(32, '0')}`;
  expect(await admission(lost, 'async', 'a', 1)).toBe('started');
  // just admitted: its add may be on its way, so it keeps its place
  await scheduler.recover();
  expect((await scheduler.stats()).running.get('a')).toEqual({ count: 1, cost: 1 });
  // as if the api died between admission and add, two minutes ago
  const running = `${prefix}:sched:images:running`;
  const [account, cost, lane] = (await redis.hget(running, lost))!.split(' ');
  await redis.hset(running, lost, `${account} ${cost} ${lane} ${Date.now() - 120_000}`);
  await scheduler.recover();
  expect((await scheduler.stats()).running.size).toBe(0);
  expect(await admission(`img_${String(9_101).padStart(32, '0')}`, 'async', 'a', 1)).toBe('started');
});

test('a job whose place was taken at admission, then added parked, is promoted by recover()', async () => {
  await scheduler.heartbeat('w1', 2, 10_000, 0);
  const jobId = `img_${String(9_200).padStart(32, '0')}`;
  expect(await admission(jobId, 'async', 'a', 1)).toBe('started');
  // the same admission sent again (its reply lost to a reconnect) finds its place taken; an api
  // from before 'running' was told apart from 'already' added such a job parked
  expect(await admission(jobId, 'async', 'a', 1)).toBe('running');
  await queue.add('generate', { accountId: 'a' }, { jobId, delay: PARKED_MS });
  // a job its worker put off for a while (a 429's pause) holds its place too, and is left delayed
  const paused = `img_${String(9_201).padStart(32, '0')}`;
  expect(await admission(paused, 'async', 'a', 1)).toBe('started');
  await queue.add('generate', { accountId: 'a' }, { jobId: paused, delay: 60_000 });
  await scheduler.recover();
  expect(await queue.getJobState(jobId)).toBe('waiting');
  expect(await queue.getJobState(paused)).toBe('delayed');
  expect((await scheduler.stats()).running.get('a')).toEqual({ count: 2, cost: 2 });
});

test('at the start of a burst the pace comes from what is in flight, not from the few finishes so far', async () => {
  for (let i = 0; i < 150; i++) await admit('bulk');
  await scheduler.heartbeat('w1', 100, 10_000, 0);
  while (dispatched.length < 100) {
    const before = dispatched.length;
    await scheduler.dispatch();
    if (dispatched.length === before) break;
  }
  expect(dispatched).toHaveLength(100);
  // five finish moments after they were handed out; 95 are still in their upstream calls
  for (const { jobId } of dispatched.slice(0, 5)) await scheduler.finished(jobId);
  // how long each held its place is what the schedule recorded at its finish: real time, as long as
  // this machine took. Set to 40 ms each, as the record of a fast upstream would read
  const recent = `${scheduler.keys.S}:recent`;
  const finishes = await redis.zrange(recent, 0, -1, 'WITHSCORES');
  expect(finishes).toHaveLength(10);
  for (let i = 0; i < finishes.length; i += 2) {
    const [jobId, cost] = finishes[i]!.split(' ');
    await redis
      .multi()
      .zrem(recent, finishes[i]!)
      .zadd(recent, finishes[i + 1]!, `${jobId} ${cost} 40`)
      .exec();
  }
  const estimate = await estimateStart(redis, scheduler.keys, 1, 'async', 'bulk');
  expect(estimate.position).toBe(50);
  // five finishes over the one-second floor alone say 5 a second: 50 ahead would be 10 s away.
  // 95 in flight, each held 40 ms, say 95 every 40 ms: the 50 ahead are through in about 21 ms
  expect(estimate.startsInMs).toBe(Math.round((50 * 40) / 95));
});

test("jobs finished lately are kept to the last 200 by the workers' heartbeats, not by each finish", async () => {
  await scheduler.heartbeat('w1', 1, 60_000, 0);
  const recent = `${scheduler.keys.S}:recent`;
  const [seconds] = await redis.time();
  const now = Number(seconds) * 1000;
  // 240 finishes, a millisecond apart, the newest last
  const finishes = Array.from({ length: 240 }, (_, i) => [now - 240 + i, `img_${i} 1 40`] as const);
  await redis.zadd(recent, ...finishes.flat());
  expect(await admission(`img_${String(9_400).padStart(32, '0')}`, 'interactive', 'a', 1)).toBe('started');
  await scheduler.finished(`img_${String(9_400).padStart(32, '0')}`);
  expect(await redis.zcard(recent)).toBe(241); // a finish adds, and trims nothing
  await scheduler.heartbeat('w1', 1, 60_000, 0);
  expect(await redis.zcard(recent)).toBe(200);
  const kept = await redis.zrange(recent, 0, 0);
  expect(kept[0]).toBe('img_41 1 40'); // the oldest 41 went
});

test('the window is kept for admissions until the first live worker lapses, and made again when a worker or the cap changes', async () => {
  const id = (n: number) => `img_${String(9_500 + n).padStart(32, '0')}`;
  const window = () => redis.get(`${prefix}:sched:images:window`);
  await scheduler.heartbeat('w1', 1, 60_000, 0);
  await scheduler.heartbeat('w2', 1, 2_000, 0); // lapses first
  expect(await admission(id(0), 'interactive', 'a', 1)).toBe('started');
  expect(await window()).toBe('2');
  const lapse = await redis.pttl(`${prefix}:sched:images:window`);
  expect(lapse).toBeGreaterThan(0);
  expect(lapse).toBeLessThanOrEqual(2_000);
  expect(await admission(id(1), 'interactive', 'a', 1)).toBe('started');
  expect(await admission(id(2), 'interactive', 'a', 1)).toBe('queued'); // 2 running, a window of 2
  await scheduler.cancel(id(2));
  await scheduler.finished(id(1));

  // w2 gone quiet: once its heartbeat lapsed (the kept window with it) the window is w1's alone
  while ((await window()) !== null) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(await admission(id(3), 'interactive', 'a', 1)).toBe('queued');
  await scheduler.cancel(id(3));
  expect(await window()).toBe('1');

  // a worker that says it runs more is counted at once, and so is a cap
  await scheduler.heartbeat('w1', 3, 60_000, 0);
  expect(await window()).toBeNull();
  expect(await admission(id(4), 'interactive', 'a', 1)).toBe('started');
  expect(await window()).toBe('3');
  await scheduler.heartbeat('w1', 3, 60_000, 2);
  expect(await admission(id(5), 'interactive', 'a', 1)).toBe('queued'); // capped at 2: id(0) and id(4) run
  expect(await window()).toBe('2');
});
