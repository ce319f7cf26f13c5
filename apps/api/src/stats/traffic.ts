import type { NextFunction, Request, Response } from 'express';
import type { Redis } from 'ioredis';
import { match } from 'path-to-regexp';
import { CAPABILITIES, type AnyDoor, type Capability } from '@relay/jobs';

/**
 * Requests, errors and latency per minute from the relay's own data (no Prometheus needed):
 *   {p}:stats:minute:{epochMinute}   hash  {group}:n, {group}:e4, {group}:e5, {group}:ms, {group}:b{i}
 * Each api process adds up its answers in memory and sends one HINCRBY pipeline per flush
 * (not a write per request). Cardinality is fixed: GROUPS x (4 + LATENCY_BOUNDS + 1) fields a
 * minute, and every minute expires after RETENTION_HOURS.
 */
export type TrafficGroup = Capability['id'] | 'jobs' | 'models' | 'files';
/** Each capability's group (the registry's), then the reads every capability shares. */
export const GROUPS: readonly TrafficGroup[] = [...Object.values(CAPABILITIES).map((c) => c.id), 'jobs', 'models', 'files'];
/** Upper bounds (ms) of the latency histogram; the last bucket is everything slower. */
export const LATENCY_BOUNDS = [100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000, 60_000];
export const RETENTION_HOURS = 26;

export const minuteKey = (prefix: string, minute: number) => `${prefix}:stats:minute:${minute}`;

/**
 * The public API's traffic by kind: a door's calls count for its capability (images, speech);
 * everything else (admin, console, docs, health) is not counted.
 */
export function trafficGroups(doors: readonly AnyDoor[]) {
  const matchers = doors.flatMap((door) => door.http.paths.map((path) => ({ door, matches: match(path, { decode: false }) })));
  return (path: string): TrafficGroup | undefined => {
    for (const { door, matches } of matchers) {
      const found = matches(path);
      if (found && (door.http.claims?.(found.params as Record<string, string>) ?? true)) return door.capability.id;
    }
    if (path.startsWith('/v1/jobs/')) return 'jobs';
    if (/^\/v1(beta|alpha)?\/models/.test(path)) return 'models';
    if (path.startsWith('/files/')) return 'files';
    return undefined;
  };
}

export const bucketOf = (ms: number) => {
  const i = LATENCY_BOUNDS.findIndex((bound) => ms <= bound);
  return i === -1 ? LATENCY_BOUNDS.length : i;
};

export function createTrafficRecorder(
  redis: Redis,
  prefix: string,
  flushEveryMs: number,
  groupOf: (path: string) => TrafficGroup | undefined,
) {
  /** minute -> field -> increment, since the last flush */
  let pending = new Map<number, Map<string, number>>();
  const add = (minute: number, field: string, by: number) => {
    const fields = pending.get(minute) ?? new Map<string, number>();
    fields.set(field, (fields.get(field) ?? 0) + by);
    pending.set(minute, fields);
  };

  const record = (group: TrafficGroup, status: number, ms: number, at = Date.now()) => {
    const minute = Math.floor(at / 60_000);
    add(minute, `${group}:n`, 1);
    if (status >= 500) add(minute, `${group}:e5`, 1);
    else if (status >= 400) add(minute, `${group}:e4`, 1);
    add(minute, `${group}:ms`, Math.round(ms));
    add(minute, `${group}:b${bucketOf(ms)}`, 1);
  };

  const flush = async () => {
    if (pending.size === 0) return;
    const batch = pending;
    pending = new Map();
    const pipeline = redis.pipeline();
    for (const [minute, fields] of batch) {
      const key = minuteKey(prefix, minute);
      for (const [field, by] of fields) pipeline.hincrby(key, field, by);
      pipeline.expire(key, RETENTION_HOURS * 3_600);
    }
    await pipeline.exec().catch(() => undefined); // Redis away: these seconds of statistics are lost, nothing else
  };
  const timer = setInterval(() => void flush(), flushEveryMs);
  timer.unref();

  return {
    record,
    flush,
    middleware(req: Request, res: Response, next: NextFunction) {
      const group = groupOf(req.path);
      if (!group) return next();
      const started = performance.now();
      res.on('finish', () => record(group, res.statusCode, performance.now() - started));
      next();
    },
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}

export type TrafficRecorder = ReturnType<typeof createTrafficRecorder>;
