import type { Redis } from 'ioredis';
import { z } from 'zod';
import { GROUPS, LATENCY_BOUNDS, minuteKey } from './traffic.js';

export const trafficQuery = z.strictObject({
  hours: z.coerce.number().int().min(1).max(24).default(3),
});

export const trafficSchema = z
  .object({
    /** Minutes with any traffic, oldest first. */
    minutes: z.array(
      z.object({
        at: z.number().int().describe('start of the minute, epoch ms'),
        requests: z.number().int(),
        clientErrors: z.number().int().describe('4xx answers'),
        serverErrors: z.number().int().describe('5xx answers'),
        avgMs: z.number(),
        p95Ms: z
          .number()
          .describe("upper bound of the latency bucket holding the 95th percentile (the slowest bucket's is the largest bound)"),
      }),
    ),
    /** Requests over the whole window, per kind of request. */
    byGroup: z.array(z.object({ group: z.enum(GROUPS), requests: z.number().int(), errors: z.number().int() })),
  })
  .meta({ id: 'Traffic' });
export type Traffic = z.output<typeof trafficSchema>;

function percentileBound(buckets: number[], total: number, share: number) {
  let seen = 0;
  for (let i = 0; i < buckets.length; i += 1) {
    seen += buckets[i]!;
    if (seen >= total * share) return LATENCY_BOUNDS[Math.min(i, LATENCY_BOUNDS.length - 1)]!;
  }
  return LATENCY_BOUNDS.at(-1)!;
}

/** The last `hours` of per-minute traffic, every api process's answers added up. */
export async function readTraffic(redis: Redis, prefix: string, hours: number, now = Date.now()): Promise<Traffic> {
  const last = Math.floor(now / 60_000);
  const minutes = Array.from({ length: hours * 60 }, (_, i) => last - hours * 60 + 1 + i);
  const pipeline = redis.pipeline();
  for (const minute of minutes) pipeline.hgetall(minuteKey(prefix, minute));
  const replies = (await pipeline.exec()) ?? [];
  const groups = new Map(GROUPS.map((g) => [g, { group: g, requests: 0, errors: 0 }]));
  const rows: Traffic['minutes'] = [];
  minutes.forEach((minute, i) => {
    const hash = (replies[i]?.[1] ?? {}) as Record<string, string>;
    const field = (group: string, name: string) => Number(hash[`${group}:${name}`] ?? 0);
    let [requests, clientErrors, serverErrors, ms] = [0, 0, 0, 0];
    const buckets = new Array<number>(LATENCY_BOUNDS.length + 1).fill(0);
    for (const group of GROUPS) {
      const n = field(group, 'n');
      if (n === 0) continue;
      const [e4, e5] = [field(group, 'e4'), field(group, 'e5')];
      requests += n;
      clientErrors += e4;
      serverErrors += e5;
      ms += field(group, 'ms');
      buckets.forEach((_, b) => (buckets[b]! += field(group, `b${b}`)));
      const total = groups.get(group)!;
      total.requests += n;
      total.errors += e4 + e5;
    }
    if (requests === 0) return;
    rows.push({
      at: minute * 60_000,
      requests,
      clientErrors,
      serverErrors,
      avgMs: Math.round(ms / requests),
      p95Ms: percentileBound(buckets, requests, 0.95),
    });
  });
  return { minutes: rows, byGroup: [...groups.values()] };
}
