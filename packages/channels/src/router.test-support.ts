import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeEach } from 'vitest';
import { startRedis, uniqueName } from '@relay/testkit';
import { ownSetName } from './keys.js';
import { createChannelRouter, type Candidate, type ChannelRouter, type Verdict } from './router.js';

/** What the router's tests (router.int.test.ts, capacity.int.test.ts) share. */

export const breaker = { windowMs: 60_000, minCalls: 4, failureShare: 0.5, consecutive: 1_000, cooldownMs: 300 };
export const own = (id: string, maxConcurrent = 0, maxPerMinute = 0) => ({ name: ownSetName(id), maxConcurrent, maxPerMinute });
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

/**
 * The router tests' Redis and, for each test, a prefix and a router of their own (registered as
 * the calling file's hooks). `current` is filled before each test.
 */
export async function routerHarness() {
  const handle = await startRedis();
  const redis = new Redis(handle.url);
  /** A connection for subscribing: no ready check (its INFO would arrive after the SUBSCRIBE). */
  const subscriberConnection = () => new Redis(handle.url, { enableReadyCheck: false });
  afterAll(async () => {
    redis.disconnect();
    await handle.close();
  });
  const current = {} as { prefix: string; router: ChannelRouter; subscriber: Redis };
  beforeEach(() => {
    current.prefix = uniqueName('ch');
    current.subscriber = subscriberConnection();
    current.router = createChannelRouter({
      redis,
      subscriber: current.subscriber,
      prefix: current.prefix,
      leaseMs: 2_000,
      breaker,
      shortWaitMs: 100,
    });
  });
  afterEach(() => current.subscriber.disconnect());
  return { handle, redis, current, subscriberConnection, redisNow: () => redisTime(redis) };
}
