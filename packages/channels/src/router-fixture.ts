import type { Redis } from 'ioredis';
import type { Candidate, Verdict } from './router.js';

/** What the router's tests (router.int.test.ts, capacity.int.test.ts) share. */

export const breaker = { windowMs: 60_000, minCalls: 4, failureShare: 0.5, consecutive: 1_000, cooldownMs: 300 };
export const own = (id: string, maxConcurrent = 0, maxPerMinute = 0) => ({ name: `ch:${id}`, maxConcurrent, maxPerMinute });
export const channel = (id: string, extra: Partial<Candidate> = {}): Candidate => ({ id, tier: 0, weight: 1, sets: [own(id)], ...extra });
/** An upstream failure that carries the verdict the judge gives it. */
export class Upstream extends Error {
  constructor(readonly verdict: Verdict) {
    super(verdict.outcome);
  }
}
export const judge = (error: unknown): Verdict => (error instanceof Upstream ? error.verdict : { outcome: 'fail', failover: true });
export const fail: Verdict = { outcome: 'fail', failover: true };

/** Redis's clock, the one the router's scripts decide by (ms). */
export async function redisTime(redis: Redis): Promise<number> {
  const [seconds, micros] = await redis.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}
