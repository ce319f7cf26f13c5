import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { FlowProducer, Queue, Worker, type Job } from 'bullmq';
import { Cluster, Redis } from 'ioredis';
import { afterAll, afterEach, expect, test } from 'vitest';
import { queueConnection } from '@relay/core';
import { startRedis, startRedisCluster, uniqueName } from '@relay/testkit';
import { bullScripts } from './bull-marker.js';
import { relayScripts, runWithRelayScripts, useRelayScripts } from './bull-scripts.js';

/**
 * The marker fix (bull-marker.ts) with real BullMQ workers on real Redis, each on connections of
 * its own. Nothing is timed: each step waits for the event it needs, and what a worker did is read
 * from its own log of fetches (`take`) and of what ended each of its blocking waits: a marker, the
 * time a delayed job is due, or its block timeout (`drainDelay`, 10 s: a job only a timeout found
 * was not taken promptly, and the test fails on it).
 */
const handle = await startRedis();
const redis = new Redis(handle.url);
const connection = { url: handle.url, maxRetriesPerRequest: null };
const open: Array<{ close(): Promise<void> }> = [];
const gates: Array<() => void> = [];
afterEach(async () => {
  for (const release of gates.splice(0)) release(); // a worker closes once its jobs end
  await Promise.all(open.splice(0).map((o) => o.close()));
});
afterAll(async () => {
  redis.disconnect();
  await handle.close();
});

type Entry = `take:${string}` | 'wait' | `wake:${string}`;
/** A blocking wait's timeout (s) with nothing delayed: the longest Redis allows BullMQ, so that a job only it finds fails the test. */
const DRAIN_DELAY = 10;

/** Whoever waits for something a worker does: looked at again after everything any worker does. */
const waiters: Array<() => void> = [];
const changed = () => {
  for (const wake of waiters.splice(0)) wake();
};
/** Resolves once `done()` holds. */
const until = async (done: () => boolean) => {
  while (!done()) await new Promise<void>((resolve) => waiters.push(resolve));
};

/** A worker running the fixed scripts, each job held until `release()`; `log` what it did, in order. */
function startWorker(queue: Queue, concurrency: number) {
  const log: Entry[] = [];
  /** Each job's end as moveToFinished was sent: its id and whether it asked for the next job (1) or not (0). */
  const ends: string[] = [];
  const finished = new Set<string>();
  const note = (entry: Entry) => {
    log.push(entry);
    changed();
  };
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  gates.push(release);
  const worker = new Worker(queue.name, () => released, {
    connection,
    prefix: queue.opts.prefix,
    concurrency,
    drainDelay: DRAIN_DELAY,
    autorun: false,
  });
  const backend = worker.backend;
  const moveToActive = backend.moveToActive.bind(backend);
  backend.moveToActive = async (...args) => {
    const next = await moveToActive(...args);
    note(`take:${String(next[1] || 'none')}`);
    return next;
  };
  const moveToFinished = backend.moveToFinished.bind(backend);
  backend.moveToFinished = (jobId, args) => {
    ends.push(`${jobId}:${String(args[backend.moveToFinishedKeys.length + 5])}`);
    return moveToFinished(jobId, args);
  };
  const waitForJob = backend.waitForJob.bind(backend);
  backend.waitForJob = async (blockTimeout) => {
    note('wait');
    const woken = await waitForJob(blockTimeout);
    // a wait until a delayed job is due ends by its timeout; one with nothing due, after drainDelay
    note(`wake:${woken ? woken.member : blockTimeout < DRAIN_DELAY ? 'due' : 'timeout'}`);
    return woken;
  };
  worker.on('completed', (job: Job) => {
    finished.add(job.id!);
    changed();
  });
  runWithRelayScripts(worker);
  open.push(worker);
  return {
    worker,
    log,
    ends,
    finished,
    release,
    /** Its fetch took `job` (a take by BullMQ's fetch loop; moveToFinished's next is not in the log). */
    took: (job: Job) => until(() => log.includes(`take:${job.id}`)),
    /** It went to block on the marker for the `n`th time. */
    blocked: (n = 1) => until(() => log.filter((e) => e === 'wait').length >= n),
  };
}
type Started = ReturnType<typeof startWorker>;

/** Resolves once the workers, between them, completed every job of `jobs`. */
const allFinished = (workers: Started[], jobs: Job[]) => until(() => jobs.every((job) => workers.some((w) => w.finished.has(job.id!))));

function openQueue() {
  const queue = new Queue(uniqueName('marker'), { connection, prefix: uniqueName('bull') });
  open.push(queue);
  return queue;
}

const keyOf = (queue: Queue, key: string) => `${queue.opts.prefix}:${queue.name}:${key}`;
const markerOf = (queue: Queue) => redis.zrange(keyOf(queue, 'marker'), 0, -1, 'WITHSCORES');

test('a worker that took the only job blocks at once: no fetch, no wake on a marker of its own', async () => {
  const queue = openQueue();
  const w = startWorker(queue, 4);
  await w.blocked();
  const first = await queue.add('first', {});
  await w.took(first);
  await w.blocked(2);
  expect(await markerOf(queue)).toEqual([]); // BullMQ's own leaves ["0", "0"] here
  const second = await queue.add('second', {});
  await w.took(second);
  // its take said it was the last: no fetch that finds nothing (BullMQ's loop, its concurrency not
  // full, made one), straight to the wait the add ends
  const from = w.log.indexOf(`take:${first.id}`);
  expect(w.log.slice(from, w.log.indexOf(`take:${second.id}`) + 1)).toEqual([`take:${first.id}`, 'wait', 'wake:0', `take:${second.id}`]);
  w.release();
  await allFinished([w], [first, second]);
});

test("a queue paused (bull-board's action) takes nothing, though the relay's add, which does not read the pause, wakes a worker; resumed, its job is taken", async () => {
  const queue = openQueue();
  await useRelayScripts(queue);
  const w = startWorker(queue, 1);
  await w.blocked();
  await queue.pause();
  const job = await queue.add('while-paused', {});
  // woken by the add's marker, its take finds the queue paused and it blocks again
  await w.blocked(2);
  expect(w.log.slice(w.log.indexOf('wait'))).toEqual(['wait', 'wake:0', 'take:none', 'wait']);
  expect(await queue.getJobState(job.id!)).toBe('waiting');
  await queue.resume();
  await w.took(job);
  w.release();
  await allFinished([w], [job]);
  expect(w.log).not.toContain('wake:timeout');
});

test('a job that ends while its worker blocks on the marker takes no next job with its end; a job added while it ran is taken on the marker', async () => {
  const queue = openQueue();
  const w = startWorker(queue, 4);
  await w.blocked();
  const first = await queue.add('first', {});
  await w.took(first);
  await w.blocked(2); // blocks while `first` runs: a job added now ends the block
  const second = await queue.add('second', {});
  await w.took(second);
  await w.blocked(3);
  w.release();
  await allFinished([w], [first, second]);
  expect(w.ends.sort()).toEqual([`${first.id}:0`, `${second.id}:0`].sort()); // BullMQ's own asks for the next (1) with each
  expect(w.log).not.toContain('wake:timeout');
});

test('a worker whose concurrency is full (so it does not block) still takes the next job with an end', async () => {
  const queue = openQueue();
  const w = startWorker(queue, 1);
  await w.blocked();
  const first = await queue.add('first', {});
  await w.took(first);
  const second = await queue.add('second', {});
  w.release();
  await allFinished([w], [first, second]);
  expect(w.ends[0]).toBe(`${first.id}:1`);
  expect(w.log).not.toContain(`take:${second.id}`); // taken with the first one's end, not by a fetch
  expect(w.log).not.toContain('wake:timeout');
});

// waiting jobs only: no relay job is prioritized (bull-flows.ts refuses the option), and the marker looks at the wait list alone
test('a burst of jobs while one worker is busy: the idle one is woken by the marker, the last take leaves none', async () => {
  const queue = openQueue();
  const a = startWorker(queue, 1);
  const b = startWorker(queue, 1);
  await Promise.all([a.blocked(), b.blocked()]);
  // in one transaction (a flow producer's), so its adds leave one marker between them: one
  // worker wakes on it, the other only on the marker the first one's take leaves
  const flows = new FlowProducer({ connection, prefix: queue.opts.prefix });
  open.push(flows);
  const added = await flows.addBulk(Array.from({ length: 6 }, (_, i) => ({ name: `burst-${i}`, queueName: queue.name, data: {} })));
  const jobs = added.map((flow) => flow.job);
  // each takes one (concurrency 1); four still wait, so a marker stays for whoever is free next
  const tookOne = (w: Started) => until(() => w.log.some((e) => e.startsWith('take:') && e !== 'take:none'));
  await Promise.all([tookOne(a), tookOne(b)]);
  expect(await markerOf(queue)).toEqual(['0', '0']);
  a.release();
  b.release();
  await allFinished([a, b], jobs);
  expect(await queue.getJobCounts('wait', 'active', 'completed')).toEqual({
    wait: 0,
    active: 0,
    completed: 6,
  });
  expect(await markerOf(queue)).toEqual([]); // BullMQ's own leaves ["0", "0"] after the last take
  expect([...a.log, ...b.log]).not.toContain('wake:timeout');
});

test('jobs added one by one to two workers are each taken on a marker, none after a timeout', async () => {
  const queue = openQueue();
  const workers = [startWorker(queue, 2), startWorker(queue, 2)];
  for (const w of workers) w.release();
  await Promise.all(workers.map((w) => w.blocked()));
  for (let i = 0; i < 8; i++) {
    const job = await queue.add(`one-${i}`, {});
    await allFinished(workers, [job]);
  }
  expect(await queue.getJobCounts('completed')).toEqual({ completed: 8 });
  expect(workers.flatMap((w) => w.log)).not.toContain('wake:timeout');
  expect(await markerOf(queue)).toEqual([]);
});

test('a delayed job wakes a blocked worker', async () => {
  const queue = openQueue();
  const w = startWorker(queue, 1);
  w.release();
  await w.blocked();
  const soon = await queue.add('soon', {}, { delay: 200 });
  await w.took(soon);
  // the delayed add's marker tells the blocked worker when it is due (it looks again then)
  const waited = w.log.slice(w.log.indexOf('wait'), w.log.indexOf(`take:${soon.id}`) + 1);
  expect(waited.slice(0, 2)).toEqual(['wait', 'wake:1']);
  expect(waited).not.toContain('wake:timeout');
  await allFinished([w], [soon]);
});

test('a take that leaves only delayed jobs leaves their time for the other workers, not "0"', async () => {
  const queue = openQueue();
  const w = startWorker(queue, 1);
  await w.blocked();
  const later = await queue.add('later', {}, { delay: 60_000 });
  await until(() => w.log.at(-1) === 'wait' && w.log.includes('wake:1')); // it knows when "later" is due, and blocks till then
  const now = await queue.add('now', {});
  await w.took(now);
  // nothing waits and the worker is busy: the marker holds the delayed job's time, as a delayed add leaves it
  const [, score] = await redis.zrange(keyOf(queue, 'delayed'), 0, 0, 'WITHSCORES');
  const marker = await markerOf(queue);
  expect(marker).toHaveLength(2);
  expect(marker[0]).toBe('1'); // BullMQ's own leaves "0"
  expect(Number(marker[1])).toBe(Number(score) / 0x1000);
  w.release();
  await later.promote();
  await allFinished([w], [now, later]);
  expect(w.log).not.toContain('wake:timeout');
});

test('on Redis Cluster the worker runs the fixed scripts and never sends BullMQ’s own', async () => {
  const cluster = await startRedisCluster();
  try {
    const prefix = '{marker}';
    const queue = new Queue(uniqueName('marker'), { connection: queueConnection(cluster.url, 'patient'), prefix });
    const worker = new Worker(queue.name, async () => 'done', {
      connection: queueConnection(cluster.url, 'patient'),
      prefix,
      autorun: false,
    });
    runWithRelayScripts(worker);
    const done = once(worker, 'completed');
    await queue.add('on-cluster', {});
    await done;
    const sha = (lua: string) => createHash('sha1').update(lua).digest('hex');
    const own = new Map(bullScripts().map((s) => [s.name, s.content]));
    const probe = new Cluster([{ host: '127.0.0.1', port: cluster.nodes[0]!.port }]);
    const node = await ownerOf(probe, prefix);
    for (const name of ['moveToActive', 'moveToFinished']) {
      const fixed = relayScripts().find((s) => s.name === name)!.content;
      expect(await node.script('EXISTS', sha(fixed), sha(own.get(name)!)), name).toEqual([1, 0]);
    }
    probe.disconnect();
    await worker.close();
    await queue.close();
  } finally {
    await cluster.close();
  }
}, 60_000);

/** The master that holds `key`'s slot. */
async function ownerOf(cluster: Cluster, key: string): Promise<Redis> {
  const slot = Number(await cluster.cluster('KEYSLOT', key));
  const ranges = await cluster.cluster('SLOTS');
  const port = ranges.find(([from, to]) => slot >= from && slot <= to)![2]![1];
  return cluster.nodes('master').find((node) => node.options.port === port)!;
}
