import { Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeEach, describe, expect, test } from 'vitest';
import { AppError, createLogger, decodeFailure, freshChannel, runSteps, valueOf } from '@relay/core';
import { createBilling, type Reservation } from '@relay/billing';
import {
  perQueue,
  QUEUES,
  bullPrefix,
  openRelayQueues,
  type JobMeta,
  type QueueName,
  type RelayJob,
  type RelayQueues,
  type RelayWorker,
  runWithRelayScripts,
} from '@relay/jobs';
import { schedulerFor, type Scheduler } from '@relay/scheduler';
import { startRedis, uniqueName, waitFor } from '@relay/testkit';
import { createJobLife, type JobLife } from './life.js';
import { readCancelled } from './cancel.js';
import { followJob } from './notices.js';

/** A job's life against a real Redis, real BullMQ queues and the real schedule; the "worker" is this test. */
const handle = await startRedis();
const redis = new Redis(handle.url);
const log = createLogger('life-test', 'silent');
let prefix: string;
let queues: RelayQueues;
let schedulers: Record<QueueName, Scheduler>;
let life: JobLife;
const billing = () => createBilling(redis, prefix);

afterAll(async () => {
  await Promise.all(Object.values(queues ?? {}).map((q) => q.close()));
  redis.disconnect();
  await handle.close();
});

beforeEach(async () => {
  await Promise.all(Object.values(queues ?? {}).map((q) => q.close()));
  prefix = uniqueName('life');
  const connection = new Redis(handle.url, { maxRetriesPerRequest: null });
  queues = openRelayQueues(() => ({ connection, prefix: bullPrefix(prefix) }));
  schedulers = perQueue((name) => schedulerFor(redis, queues[name], prefix, name));
  life = createJobLife({ redis, prefix, billing: billing(), schedulers, queues, log });
  await redis.hset(`${prefix}:account:acct`, { balance: 1_000 });
  // one live worker running one job at a time: the window has room for one
  await schedulers.images.heartbeat('w1', 1, 60_000, 0);
});

let counter = 0;
const reservation = (amount = 100): Reservation => ({
  accountId: 'acct',
  keyId: 'key',
  jobId: `img_${String(counter++).padStart(32, '0')}`,
  model: 'm',
  amount,
  units: '1 images',
});
const payload = (jobId: string) => async () => ({
  meta: { requestId: jobId, accountId: 'acct', keyId: 'key', createdAt: 0 } satisfies JobMeta,
});
const admit = (r: Reservation, prepare = payload(r.jobId)) =>
  life.admit({ queue: 'images', name: 'generate', reservation: r, lane: 'interactive', cost: 1, prepare });
const balance = async () => Number(await redis.hget(`${prefix}:account:acct`, 'balance'));
const running = () => redis.hlen(`${prefix}:sched:images:running`);
const pending = () => redis.hlen(`${prefix}:sched:images:jobs`);

describe('admission', () => {
  test('money held and place taken together: the first job goes straight to the workers, the next waits parked', async () => {
    const first = await admit(reservation());
    const second = await admit(reservation());
    expect(await first.getState()).toBe('waiting');
    expect(await second.getState()).toBe('delayed');
    expect(await balance()).toBe(800);
    expect([await running(), await pending()]).toEqual([1, 1]);
  });

  test('an admission sent again after a reconnect lost its reply finds its place taken, and its job still goes to the workers', async () => {
    const r = reservation();
    // the first run of the admission took the place (and its reply never came back)
    const [placed] = await runSteps(redis, [schedulers.images.steps.admit(r.jobId, 'interactive', 'acct', 1)]);
    expect(valueOf(placed)).toBe('started');
    const job = await admit(r);
    expect(await job.getState()).toBe('waiting');
    expect([await running(), await pending()]).toEqual([1, 0]);
  });

  test('a balance too short is a 402 that leaves no place, no reservation and no job behind', async () => {
    const r = reservation(5_000);
    await expect(admit(r)).rejects.toMatchObject({ code: 'insufficient_balance' });
    expect([await running(), await pending(), await balance()]).toEqual([0, 0, 1_000]);
    expect(await queues.images.getJob(r.jobId)).toBeUndefined();
    // the place it held for a moment is free again: the next one goes straight through
    expect(await (await admit(reservation())).getState()).toBe('waiting');
  });

  test('a payload that cannot be built gives the money and the place back', async () => {
    const r = reservation();
    await expect(
      admit(r, () => Promise.reject(new AppError('invalid_request', 'the image could not be read', { param: 'image' }))),
    ).rejects.toThrow('the image could not be read');
    expect([await running(), await pending(), await balance()]).toEqual([0, 0, 1_000]);
    expect(await billing().reservationState(r.jobId)).toBe('released');
  });

  test('a batch line: carved from its hold, short when the hold and balance cannot cover it, underway once begun', async () => {
    const hold = { ...reservation(150), jobId: 'batch_1' };
    await billing().hold(hold);
    const feed = (r: Reservation) =>
      life.feed({
        queue: 'images',
        name: 'generate',
        holdId: 'batch_1',
        reservation: r,
        lane: 'batch',
        cost: 1,
        prepare: payload(r.jobId),
      });
    const line = reservation(100);
    expect(await feed(line)).toHaveProperty('job');
    // fed again (an interrupted feed): the same job, nothing carved twice
    expect(await feed(line)).toHaveProperty('job');
    expect(await billing().begin(line.jobId)).toBe('begin');
    expect(await feed(line)).toEqual({ underway: true });
    expect(await feed(reservation(5_000))).toEqual({ short: true });
    expect(await balance()).toBe(850);
    expect(await running()).toBe(1);
  });
});

describe('cancel', () => {
  test('before its call began: money back, out of the schedule and the queue; after: nothing changes', async () => {
    const job = await admit(reservation());
    expect(await life.cancel('images', job)).toBe(true);
    expect([await running(), await balance(), await job.getState()]).toEqual([0, 1_000, 'unknown']);

    const begun = await admit(reservation());
    await life.begin(begun);
    expect(await life.cancel('images', begun)).toBe(false);
    await expect(life.begin(await admit(reservation()))).resolves.toBe(true);
  });

  test('a worker holding a cancelled job refuses to call', async () => {
    const job = await admit(reservation());
    await life.cancel('images', job);
    await expect(life.begin(job)).rejects.toMatchObject({ code: 'cancelled' });
  });

  test('for its owner: money back, its end kept and told to a waiter as a failure; a begun job is not cancelled', async () => {
    const job = await admit(reservation());
    const told: string[] = [];
    const inbox = `${prefix}:inbox:test-${job.id}`;
    await redis.xadd(inbox, '*', 't', 'hello');
    await followJob(redis, prefix, job.id!, inbox);
    expect(await life.cancelFor('images', job, 'owner', 60)).toBe(true);
    expect([await running(), await balance(), await job.getState()]).toEqual([0, 1_000, 'unknown']);
    const kept = await readCancelled(redis, prefix, job.id!);
    expect(kept).toMatchObject({ reason: 'owner', accountId: job.data.meta.accountId });
    expect(decodeFailure(kept!.failedReason)).toMatchObject({ code: 'cancelled', message: expect.stringMatching(/by its owner/) });
    for (const [, fields] of await redis.xrange(inbox, '-', '+')) told.push(fields[1]!);
    expect(told).toEqual(['hello', 'failed']);

    const begun = await admit(reservation());
    await life.begin(begun);
    expect(await life.cancelFor('images', begun, 'owner', 60)).toBe(false);
    expect(await readCancelled(redis, prefix, begun.id!)).toBeUndefined();
  });

  test('a job followed hears its begin; one nobody follows is told no one, its reservation unmarked', async () => {
    const followed = await admit(reservation());
    const inbox = `${prefix}:inbox:follower-${followed.id}`;
    await redis.xadd(inbox, '*', 't', 'hello');
    await followJob(redis, prefix, followed.id!, inbox);
    expect(await redis.hget(`${prefix}:reservation:${followed.id}`, 'followed')).toBe('1');
    await life.begin(followed);
    expect((await redis.xrange(inbox, '-', '+')).map(([, fields]) => fields[1])).toEqual(['hello', 'started']);
    const alone = await admit(reservation());
    await life.begin(alone);
    expect(await redis.hget(`${prefix}:reservation:${alone.id}`, 'followed')).toBeNull();
    // a job long gone is followed without its reservation being made again
    await followJob(redis, prefix, 'gone-long-ago', inbox);
    expect(await redis.exists(`${prefix}:reservation:gone-long-ago`)).toBe(0);
  });

  test('a begun job stopped by its owner begins no further call; one put off is brought forward; a job not begun is not stopped', async () => {
    const waiting = await admit(reservation());
    expect(await life.stop(waiting)).toBe(false);
    expect(await life.cancel('images', waiting)).toBe(true);

    const admitted = await admit(reservation());
    // taken as a worker takes it, begun, then put off as a 429 puts it off
    const taker = new Worker(QUEUES.images, null, {
      connection: new Redis(handle.url, { maxRetriesPerRequest: null }),
      prefix: bullPrefix(prefix),
    });
    const job = await taker.getNextJob('token');
    expect(job.id).toBe(admitted.id);
    await life.begin(job);
    await job.moveToDelayed(Date.now() + 600_000, 'token');
    await taker.close();
    expect(await job.getState()).toBe('delayed');
    expect(await life.stopping(job)).toBe(false);
    expect(await life.stop(job)).toBe(true);
    expect(await life.stopping(job)).toBe(true);
    expect(await job.getState()).toBe('waiting');
    await expect(life.begin(job)).rejects.toMatchObject({ code: 'cancelled', message: expect.stringMatching(/while it ran/) });
    // its money stays held until the worker ends it: charged for what it delivered, or released
    expect(await balance()).toBe(1_000 - reservation().amount);
  });

  test('past its Cancel-After deadline a job does not begin: it is cancelled, its money back', async () => {
    const job = await admit(reservation());
    const images = job as RelayJob<'images'>; // admitted to the images queue above
    await images.updateData({ ...images.data, meta: { ...images.data.meta, deadline: Date.now() - 1 } });
    await expect(life.begin(job)).rejects.toMatchObject({ code: 'cancelled', message: expect.stringMatching(/Cancel-After deadline/) });
    expect(await balance()).toBe(1_000);
  });
});

describe('running and ending', () => {
  async function runOne(process: (job: Job) => Promise<unknown>, attempts = 1, hooked = false, meta: Partial<JobMeta> = {}) {
    const ends: Array<{ outcome: string; jobId?: string }> = [];
    life.onEnded((end) => ends.push({ outcome: end.outcome, jobId: end.job.id }));
    const worker = new Worker(QUEUES.images, process, {
      ...(hooked ? { autorun: false } : {}),
      connection: new Redis(handle.url, { maxRetriesPerRequest: null }),
      prefix: bullPrefix(prefix),
    });
    life.watch({ images: worker as unknown as RelayWorker<'images'> });
    if (hooked) runWithRelayScripts(worker, life.moveHooks);
    const r = reservation();
    const job = await life.admit({
      queue: 'images',
      name: 'generate',
      reservation: r,
      lane: 'interactive',
      cost: 1,
      prepare: async () => ({ meta: { ...(await payload(r.jobId)()).meta, ...meta } }),
      options: { attempts, backoff: { type: 'fixed', delay: 1 } },
    });
    await waitFor(() => ends.length > 0, 10_000, 'the job to end');
    await worker.close();
    return { job, ends, r };
  }

  test('a checkpoint that closes the calls frees the place in the same round trip; the charge and the end follow', async () => {
    const { job, ends } = await runOne(async (j) => {
      await life.begin(j);
      await life.checkpoint(j, { generations: { 0: 'paid' } }, { callsOver: true });
      // read back as BullMQ reads it, and the place already free while the job goes on
      expect((await queues.images.getJob(j.id!))?.progress).toEqual({ generations: { 0: 'paid' } });
      expect(await running()).toBe(0);
      await life.settle(j, { accountId: 'acct', amount: 40, units: '1 images' }).ready;
      return { ok: true };
    });
    expect(ends).toEqual([{ outcome: 'completed', jobId: job.id }]);
    expect(await balance()).toBe(960);
  });

  test("with no replica to wait for, the charge rides with the job's move to completed: held until the move goes out, then made once", async () => {
    expect(life.moveHooks).toBeDefined();
    let settled: Promise<{ charged: number; applied: boolean }> | undefined;
    let ready = false;
    const { job, ends } = await runOne(
      async (j) => {
        await life.begin(j);
        const charge = life.settle(j, { accountId: 'acct', amount: 40, units: '1 images' });
        settled = charge.settled;
        await charge.ready;
        ready = true;
        // held for the move, which has not gone out: nothing charged yet
        expect(await billing().reservationState(j.id!)).toBe('started');
        return { ok: true };
      },
      1,
      true,
    );
    expect(ready).toBe(true);
    expect(ends).toEqual([{ outcome: 'completed', jobId: job.id }]);
    expect(await settled).toEqual({ charged: 40, applied: true });
    const [state, finishedOn] = await Promise.all([billing().reservationState(job.id!), queues.images.getJob(job.id!)]);
    expect([state, typeof finishedOn?.finishedOn]).toEqual(['settled', 'number']);
    expect(await balance()).toBe(960);
  });

  test.each([
    { waited: true, left: 1 },
    { waited: false, left: 0 },
  ])(
    'a file just stored is published with the charge to the process waiting to answer with it (waited: $waited)',
    async ({ waited, left }) => {
      const key = `files/${uniqueName('clip')}.wav`;
      const inbox = `${prefix}:inbox:waiting`;
      const heard: string[] = [];
      const subscriber = new Redis(handle.url);
      subscriber.on('messageBuffer', (_channel: Buffer, message: Buffer) => heard.push(message.toString()));
      await subscriber.subscribe(freshChannel(inbox));
      const { ends } = await runOne(
        async (j) => {
          await life.begin(j);
          await life.settle(j, { accountId: 'acct', amount: 40, units: '1 clips' }, undefined, [
            { key, bytes: Buffer.from('pcm'), contentType: 'audio/wav' },
          ]).ready;
          return { ok: true };
        },
        1,
        true,
        waited ? { inbox } : {},
      );
      expect(ends.map((end) => end.outcome)).toEqual(['completed']);
      await subscriber.ping(); // answered after every message published before it
      expect(heard).toEqual(waited ? [`${key}\naudio/wav\npcm`] : []);
      expect(left).toBe(heard.length);
      subscriber.disconnect();
      expect(await balance()).toBe(960);
    },
  );

  test.each([
    { charged: true, told: 'completed', runs: 1, balance: 960 },
    { charged: false, told: 'failed', runs: 0, balance: 1_000 },
  ])('a job BullMQ gives up on for stalling (charged: $charged) is told $told: a charged one runs again for its result', async (c) => {
    const ends: Array<{ outcome: string; jobId?: string }> = [];
    life.onEnded((end) => ends.push({ outcome: end.outcome, jobId: end.job.id }));
    const r = reservation();
    await admit(r);
    // a worker takes the job, stores and charges it, and dies before BullMQ hears it finished: fetched
    // by hand, its lock is never renewed (chaos seed 29: a Redis failover, then a worker killed)
    const dying = new Worker(QUEUES.images, null, {
      connection: new Redis(handle.url, { maxRetriesPerRequest: null }),
      prefix: bullPrefix(prefix),
      lockDuration: 300,
    });
    const taken = await dying.getNextJob('dying');
    expect(taken.id).toBe(r.jobId);
    await life.begin(taken);
    if (c.charged) await life.settle(taken, { accountId: 'acct', amount: 40, units: '1 images' }).ready;
    // the next worker gives up on it at once (no stall allowed) and would answer it failed
    let runs = 0;
    const worker = new Worker(
      QUEUES.images,
      async (j: Job) => {
        runs += 1;
        await life.settle(j, { accountId: 'acct', amount: 40, units: '1 images' }).ready;
        return { ok: true };
      },
      {
        connection: new Redis(handle.url, { maxRetriesPerRequest: null }),
        prefix: bullPrefix(prefix),
        maxStalledCount: 0,
        stalledInterval: 200,
      },
    );
    life.watch({ images: worker as unknown as RelayWorker<'images'> });
    try {
      await waitFor(() => ends.length > 0, 20_000, 'the job to end');
      expect(ends).toEqual([{ outcome: c.told, jobId: r.jobId }]);
      expect(runs).toBe(c.runs);
      expect(await (await queues.images.getJob(r.jobId))?.getState()).toBe(c.told);
      // charged once, or given back
      await waitFor(async () => (await balance()) === c.balance, 10_000, 'the balance settled');
    } finally {
      await worker.close();
      await dying.close();
    }
  });

  test('a job told of only when it failed for good, with its money back; its retries are not its end', async () => {
    let attempts = 0;
    const { job, ends } = await runOne(async () => {
      attempts += 1;
      throw new Error('upstream down');
    }, 3);
    expect(attempts).toBe(3);
    expect(ends).toEqual([{ outcome: 'failed', jobId: job.id }]);
    await waitFor(async () => (await balance()) === 1_000, 10_000, 'the reservation released');
    expect(await running()).toBe(0);
  });
});
