/**
 * The schedule lives in Redis and changes only inside these scripts (lua/*.lua), so any number of
 * api and worker processes can enqueue and dispatch at once. Keys, under S = {prefix}:sched:{queue}
 * (one hash tag, one Redis Cluster slot):
 *   S:jobs                  hash  pending jobId -> "lane account cost enqueuedAtMs"
 *   S:{lane}:ring           list  accounts with pending jobs in the lane, in turn order
 *   S:{lane}:q:{account}    zset  the account's pending jobs, by arrival
 *   S:{lane}:deficit        hash  account -> credit left (cost units; may go negative)
 *   S:{lane}:turn           str   the account whose turn has been credited
 *   S:{lane}:count, :cost   hash  account -> pending jobs, pending cost
 *   S:running               hash  jobId -> "account cost lane handedOutAtMs": handed to the workers,
 *                                 its upstream call(s) not over yet (copying the result holds no place)
 *   S:running:count, :cost  hash  account -> such jobs, their cost (its share of the capacity)
 *   S:dispatching           zset  jobId -> ms a dispatch picked it (promoted into BullMQ right after; a job
 *                                 started at admission is added as waiting and is not here)
 *   S:alive / S:concurrency zset workerId -> expiry ms / hash workerId -> jobs it runs at once
 *   S:cap                   str   the most jobs handed to workers at once (unset: their concurrency)
 *   S:window                str   the window those make, kept until the first live worker's heartbeat lapses
 *   S:recent                zset  "jobId cost ms" -> ms, jobs finished lately and how long each held (the last 200, trimmed by heartbeats)
 *                                 its place (the pace estimates use those of the last minute)
 * Account settings are read from {prefix}:account:{id} (weight, maxInFlight).
 *
 * Each script is helpers.lua (and window.lua) followed by its own body. Each declares one key
 * (S:jobs) and builds the others from S (ARGV[1]), so a cluster client routes it to the slot every
 * other key lives in.
 */
import { z } from 'zod';
import { luaCommand } from '@relay/core';
import { LANES, laneSchema } from '@relay/jobs';
import admitLua from './lua/admit.lua';
import cancelLua from './lua/cancel.lua';
import dispatchLua from './lua/dispatch.lua';
import finishLua from './lua/finish.lua';
import heartbeatLua from './lua/heartbeat.lua';
import helpersLua from './lua/helpers.lua';
import snapshotLua from './lua/snapshot.lua';
import statsLua from './lua/stats.lua';
import windowLua from './lua/window.lua';

const keys = ['jobs'] as const;
const flag = z.literal([0, 1]).transform((n) => n === 1);

// 0 and 3: the job was in the schedule already (an admission repeated, e.g. a batch line fed again,
// or sent again after a reconnect lost its reply), pending (0) or holding a running place (3)
const admittedSchema = z.literal([0, 1, 2, 3]).transform((n) => (['already', 'queued', 'started', 'running'] as const)[n]);
export type Admitted = z.output<typeof admittedSchema>;

export const admitScript = luaCommand({
  name: 'scheduler.admit',
  lua: helpersLua + windowLua + admitLua,
  keys,
  args: ['S', 'A', 'jobId', 'lane', 'account', 'cost'],
  reply: admittedSchema,
});

export const cancelScript = luaCommand({ name: 'scheduler.cancel', lua: helpersLua + cancelLua, keys, args: ['S', 'jobId'], reply: flag });

export const dispatchedSchema = z
  .tuple([z.string(), laneSchema, z.string(), z.number(), z.number()])
  .transform(([jobId, lane, accountId, cost, waitedMs]) => ({ jobId, lane, accountId, cost, waitedMs }));

export const dispatchScript = luaCommand({
  name: 'scheduler.dispatch',
  lua: helpersLua + windowLua + dispatchLua,
  keys,
  args: ['S', 'A', 'quantum', 'lanes', 'maxPicks'],
  // a flat list, five values per pick
  reply: z
    .array(z.union([z.string(), z.number()]))
    .transform((flat) => Array.from({ length: Math.ceil(flat.length / 5) }, (_, i) => flat.slice(5 * i, 5 * i + 5)))
    .pipe(z.array(dispatchedSchema)),
});

export const finishScript = luaCommand({
  name: 'scheduler.finish',
  lua: helpersLua + finishLua,
  keys,
  args: ['S', 'jobId'],
  reply: z.literal([0, 1, 2]).transform((n) => ({ freed: n > 0, pending: n === 2 })),
});

/** HGETALL's flat field/value list. */
const flatHash = z.array(z.string());

export const statsScript = luaCommand({
  name: 'scheduler.stats',
  lua: helpersLua + statsLua,
  keys,
  args: ['S', 'lanes'],
  // per lane its counts and costs, then the running counts and costs, then the dispatching count
  reply: z
    .array(z.unknown())
    .transform((reply) => ({ hashes: reply.slice(0, -1), dispatching: reply.at(-1) }))
    .pipe(z.object({ hashes: z.array(flatHash).length(2 * LANES.length + 2), dispatching: z.number() })),
});

export const heartbeatScript = luaCommand({
  name: 'scheduler.heartbeat',
  lua: helpersLua + heartbeatLua,
  keys,
  args: ['S', 'workerId', 'concurrency', 'ttlMs', 'cap'],
  reply: z.literal(1),
});

const n = z.number();
const text = z.string();

export const snapshotScript = luaCommand({
  name: 'scheduler.snapshot',
  lua: helpersLua + windowLua + snapshotLua,
  keys,
  args: ['S', 'A', 'lanes', 'lane', 'account', 'jobId'],
  reply: z
    .tuple([n, n, text, z.array(text), n, n, n, n, n, text, n.optional(), n.optional()])
    .transform(([waiting, higherCost, own, others, done, spanMs, finished, higherCount, rank, weight, inFlight = 0, heldMs = 0]) => ({
      waiting,
      higherCost,
      /** Cost of the account's own jobs ahead (a fraction when estimated from the first 500). */
      own: Number(own),
      /** cost, count, weight of each other account of the lane, flat */
      others,
      done,
      spanMs,
      finished,
      higherCount,
      rank,
      weight: Number(weight) || 1,
      inFlight,
      heldMs,
    })),
});
