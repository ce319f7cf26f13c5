import { setTimeout as sleep } from 'node:timers/promises';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Step } from '@relay/core';
import { CAPABILITIES, LANES, type Lane, type QueueName } from '@relay/jobs';
import { estimateStart } from './estimate.js';
import type { z } from 'zod';
import {
  type Admitted,
  admitScript,
  cancelScript,
  type dispatchedSchema,
  dispatchScript,
  finishScript,
  heartbeatScript,
  statsScript,
} from './commands.js';

/** Per account: jobs and cost units. */
export type Tally = Map<string, { count: number; cost: number }>;

/** The schedule as it stands: pending per lane and account, dispatched per account. */
export interface ScheduleStats {
  pending: Record<Lane, Tally>;
  running: Tally;
  /** Picked, not yet promoted into BullMQ (should be ~0; more means promotions are failing). */
  dispatching: number;
}

function tally(counts: string[], costs: string[]): Tally {
  const out: Tally = new Map();
  for (let i = 0; i < counts.length; i += 2) out.set(counts[i]!, { count: Number(counts[i + 1]), cost: 0 });
  for (let i = 0; i < costs.length; i += 2) {
    const entry = out.get(costs[i]!) ?? { count: 0, cost: 0 };
    entry.cost = Number(costs[i + 1]);
    out.set(costs[i]!, entry);
  }
  return out;
}

/** One job handed to the workers (its lane, account and cost), with how long it waited for its turn. */
export type Dispatched = z.output<typeof dispatchedSchema>;

export interface SchedulerSettings {
  /** REDIS_PREFIX: every key lives under it (one hash tag on Redis Cluster). */
  prefix: string;
  queueName: string;
  /** Credit per turn and unit of weight, in the queue's cost units (1 image, 1 s of audio...). */
  quantum: number;
  /** Told of each dispatch (metrics: dispatch lag, capacity share). */
  onDispatched?: (picks: Dispatched[]) => void;
  /** Told of a failure of a dispatch that nothing awaits (logs). */
  onError?: (error: Error) => void;
}

/** How far in the future an accepted job is added, parked: it waits for the scheduler, never for the clock. */
export const PARKED_MS = 365 * 86_400_000;

/** When a running entry ("account cost lane handedOutAtMs") was handed out; an entry without its time counts as long ago. */
const handedOutAt = (entry: string) => Number(entry.split(' ')[3] ?? 0) || 0;

/** A promote that does not happen at once is retried after this long; a job still missing after PROMOTE_GIVE_UP_MS is dropped. */
const PROMOTE_RETRY_MS = 2_000;
const PROMOTE_PAUSES_MS = [10, 40, 150, 800];
const PROMOTE_GIVE_UP_MS = 60_000;
/** How long an admission that found room vouches for the next one (hadRoomJustNow). */
const ROOM_HINT_MS = 1_000;

/**
 * The schedule of one queue (commands.ts has the data layout). Accepted jobs are added to BullMQ
 * parked (delayed far into the future) and enqueued here; `dispatch` picks the
 * next ones by lane and fair share and promotes them into BullMQ's execution queue, only while
 * that queue holds fewer than its window. Everything after promotion (workers, retries, 429
 * pauses, leases, checkpoints) is BullMQ as before.
 */
export function createScheduler(redis: Redis, queue: Queue, settings: SchedulerSettings) {
  const S = `${settings.prefix}:sched:${settings.queueName}`;
  const A = `${settings.prefix}:account:`;
  const lanes = LANES.join(' ');
  // every script's one declared key: a cluster client sends it to the schedule's slot
  const at = { jobs: `${S}:jobs` };

  /**
   * Moves a picked job from parked to waiting. A job picked between its enqueue and its parked
   * add (admission does them in that order) is not parked yet: tried again a few times over
   * ~1 s, as the add lands within milliseconds; whatever still fails is left to recover().
   */
  async function promote(jobId: string) {
    for (const pause of PROMOTE_PAUSES_MS) {
      try {
        await queue.backend.promote(jobId);
        await redis.zrem(`${S}:dispatching`, jobId);
        return;
      } catch {
        const state = await queue.getJobState(jobId);
        if (state === 'unknown')
          await sleep(pause); // its add is on its way
        else if (state !== 'delayed') return; // moved on already: recover() tidies up
        // parked by now: promote again at once
      }
    }
  }

  /** Whether a delayed job is parked (waiting for its turn), not put off for a while by its worker (a 429's pause). */
  const isParked = async (jobId: string) => ((await queue.getJob(jobId))?.delay ?? 0) >= PARKED_MS / 2;

  let roomUntil = 0;
  /**
   * `started`: handed to the workers at once (nothing pending, room in the window: add it to BullMQ
   * as a waiting job; it is watched until its calls are over, or recover() finds it in BullMQ);
   * `queued`: it waits for its turn (add it parked; a dispatch promotes it); `already`: it was
   * pending before (an admission repeated); `running`: it holds a running place already (the same
   * admission's first run took it, its reply lost to a reconnect: add it waiting, as for `started`).
   */
  const admitStep = (jobId: string, lane: Lane, accountId: string, cost: number): Step<Admitted> => {
    const step = admitScript.step(at, { S, A, jobId, lane, account: accountId, cost: Math.max(1, Math.round(cost)) });
    return {
      ...step,
      parse: (raw) => {
        const admitted = step.parse(raw);
        roomUntil = admitted === 'started' ? Date.now() + ROOM_HINT_MS : 0;
        return admitted;
      },
    };
  };

  // dispatches are coalesced: asked for while one runs, one more runs after it
  let running: Promise<void> | undefined;
  let again = false;
  async function dispatchOnce() {
    for (;;) {
      again = false;
      const picks = await dispatchScript(redis, at, { S, A, quantum: settings.quantum, lanes, maxPicks: 200 });
      await Promise.all(picks.map((p) => promote(p.jobId)));
      if (picks.length) settings.onDispatched?.(picks);
      if (!again) return;
    }
  }

  /** Hands out what the window has room for. Safe to call from any process, as often as wanted. */
  function dispatch(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    running = dispatchOnce().finally(() => (running = undefined));
    return running;
  }

  return {
    keys: { S, A },

    /**
     * The last job this process admitted went straight to the workers (nothing pending, room in
     * the window) less than a second ago: a new one would almost surely start at once too, so
     * the depth guard need not ask Redis where it would stand.
     */
    hadRoomJustNow: () => Date.now() < roomUntil,

    /** Takes a still-pending job out (its client left); false once it was dispatched. */
    async cancel(jobId: string) {
      return cancelScript(redis, at, { S, jobId });
    },

    /**
     * A dispatched job is past its upstream calls, or ended: its place in the window and its
     * account's share are free again (the second call for one job does nothing). `pending`: jobs
     * wait for the place, so a dispatch is worth running.
     */
    finished: (jobId: string) => finishScript(redis, at, { S, jobId }),

    /** The same calls as steps, to send with others in one round trip (runSteps). */
    steps: {
      admit: admitStep,
      finished: (jobId: string) => finishScript.step(at, { S, jobId }),
    },

    dispatch,

    /** Where a pending job (or one about to be enqueued: no jobId) stands, and when it should start. */
    estimate: (lane: Lane, accountId: string, jobId?: string) => estimateStart(redis, { S, A }, settings.quantum, lane, accountId, jobId),

    /** dispatch() for callers that do not wait: failures are reported, never thrown. */
    nudge() {
      dispatch().catch((error: Error) => settings.onError?.(error));
    },

    /** Pending per lane and account, dispatched per account (metrics, the admin API). */
    async stats(): Promise<ScheduleStats> {
      const { hashes, dispatching } = await statsScript(redis, at, { S, lanes });
      const pending = Object.fromEntries(LANES.map((lane, i) => [lane, tally(hashes[2 * i]!, hashes[2 * i + 1]!)])) as Record<Lane, Tally>;
      const base = 2 * LANES.length;
      return { pending, running: tally(hashes[base]!, hashes[base + 1]!), dispatching };
    },

    /** A worker process says it runs `concurrency` jobs of this queue at once, for `ttlMs`. */
    async heartbeat(workerId: string, concurrency: number, ttlMs: number, cap: number) {
      await heartbeatScript(redis, at, { S, workerId, concurrency, ttlMs, cap });
    },

    /**
     * Finishes what a crash interrupted: promotions that did not happen (retried; dropped when
     * the job never appeared), and running entries whose job ended without telling (a worker
     * killed between the end of a job and its report).
     */
    async recover() {
      const now = Number((await redis.time())[0]) * 1000;
      const stuck = await redis.zrangebyscore(`${S}:dispatching`, '-inf', now - PROMOTE_RETRY_MS, 'WITHSCORES', 'LIMIT', 0, 100);
      for (let i = 0; i < stuck.length; i += 2) {
        const jobId = stuck[i]!;
        const state = await queue.getJobState(jobId);
        if (state === 'delayed') await promote(jobId);
        else if (state !== 'unknown') await redis.zrem(`${S}:dispatching`, jobId);
        else if (now - Number(stuck[i + 1]) > PROMOTE_GIVE_UP_MS) {
          await finishScript(redis, at, { S, jobId });
          await redis.zrem(`${S}:dispatching`, jobId);
        }
      }
      const running = await redis.hgetall(`${S}:running`);
      for (const [jobId, entry] of Object.entries(running)) {
        const state = await queue.getJobState(jobId);
        if (state === 'completed' || state === 'failed') await finishScript(redis, at, { S, jobId });
        // handed out, yet parked in BullMQ: an admission repeated after its place was taken at once
        // (ioredis sends a command again after a reconnect, the first run's reply lost), added parked
        // by an api from before admission answered 'running' (a rolling upgrade). No dispatch will
        // promote it: here it is.
        else if (state === 'delayed' && (await isParked(jobId))) await promote(jobId);
        else if (state === 'unknown' && !(await redis.zscore(`${S}:dispatching`, jobId)) && now - handedOutAt(entry) > PROMOTE_GIVE_UP_MS)
          // started at admission and never added (its api died between the two), or dispatched and given up above
          await finishScript(redis, at, { S, jobId });
      }
    },
  };
}

export type Scheduler = ReturnType<typeof createScheduler>;

/** The scheduler of one of the relay's queues, keyed as every process keys it. */
export const schedulerFor = (
  redis: Redis,
  queue: Queue,
  redisPrefix: string,
  name: QueueName,
  hooks: Pick<SchedulerSettings, 'onDispatched' | 'onError'> = {},
) =>
  createScheduler(redis, queue, {
    prefix: redisPrefix,
    queueName: name,
    quantum: CAPABILITIES[name].quantum,
    ...hooks,
  });
