import { Redis } from 'ioredis';
import { expect, test } from 'vitest';
import { pickScript, renewScript } from './commands.js';
import { createChannelStore } from './store.js';
import { createChannelRouter } from './router.js';
import { channelKeys } from './keys.js';
import { breaker, channel, routerHarness, judge, own, Upstream } from './router.test-support.js';

/** The router's capacity: group leases across workers, leases given back or lapsing, per-minute spacing. */
const { handle, redis, current, subscriberConnection, redisNow } = await routerHarness();

test('two workers, two channels of one capacity group: never more than the group allows at once, every call runs', async () => {
  const [otherRedis, otherSubscriber] = [new Redis(handle.url), subscriberConnection()];
  const other = createChannelRouter({
    redis: otherRedis,
    subscriber: otherSubscriber,
    prefix: current.prefix,
    leaseMs: 2_000,
    breaker,
    shortWaitMs: 100,
  });
  const group = { name: 'grp:acct-1', maxConcurrent: 3, maxPerMinute: 0 };
  const candidates = [channel('a', { sets: [own('a'), group] }), channel('b', { sets: [own('b'), group] })];
  let running = 0;
  let most = 0;
  const gates: Array<() => void> = [];
  // woken each time a call reaches its gate (it holds a lease of the group by then)
  let arrived: () => void = () => {};
  const calls = Array.from({ length: 24 }, (_, i) =>
    (i % 2 ? current.router : other).call(
      candidates,
      async () => {
        running += 1;
        most = Math.max(most, running);
        await new Promise<void>((resolve) => {
          gates.push(resolve);
          arrived();
        });
        running -= 1;
        return 'done';
      },
      judge,
    ),
  );
  // each call is let go only once the group is full: a freed lease goes to a waiting call
  for (let released = 0; released < 24; released++) {
    while (gates.length < Math.min(3, 24 - released)) await new Promise<void>((resolve) => (arrived = resolve));
    expect(running).toBeLessThanOrEqual(3);
    gates.shift()!();
  }
  expect((await Promise.all(calls)).map((c) => c.value)).toEqual(Array(24).fill('done'));
  expect(most).toBe(3);
  otherRedis.disconnect();
  otherSubscriber.disconnect();
});

test('a failing call gives its lease back', async () => {
  const candidates = [channel('a', { sets: [own('a', 1)] })];
  const refusal = new Upstream({ outcome: 'ok', failover: false });
  await expect(
    current.router.call(
      candidates,
      async () => {
        throw refusal;
      },
      judge,
    ),
  ).rejects.toBe(refusal);
  expect((await current.router.call(candidates, async () => 'next', judge)).value).toBe('next');
});

test('a lease whose worker died lapses: its capacity comes back', async () => {
  const shortSubscriber = subscriberConnection();
  const short = createChannelRouter({
    redis,
    subscriber: shortSubscriber,
    prefix: current.prefix,
    leaseMs: 300,
    breaker,
    shortWaitMs: 100,
  });
  const candidates = [channel('a', { sets: [own('a', 1)] })];
  // a worker took the only lease and died: nobody renews it, nobody gives it back
  await pickScript(
    redis,
    { version: `${current.prefix}:channels:version` },
    { prefix: current.prefix, leaseMs: 300, token: 'dead-worker', random1: 0, random2: 0, candidates: 1 },
    'a',
    0,
    1,
    'ch:a,1,0',
  );
  const lapsesAt = Number(await redis.zscore(channelKeys(current.prefix).leases('ch:a'), 'dead-worker'));
  expect(lapsesAt).toBeGreaterThan(0);
  const { value } = await short.call(candidates, async () => ({ at: await redisNow() }), judge);
  // the call ran, and only once the dead lease had lapsed by the clock the leases are kept on
  expect(value.at).toBeGreaterThanOrEqual(lapsesAt);
  shortSubscriber.disconnect();
});

test("a lease set has no expiry of its own: a lease ends by its score alone, however long its call is renewed; a removed channel's leases go with it", async () => {
  const keys = channelKeys(current.prefix);
  const pick = (token: string) =>
    pickScript(
      redis,
      { version: keys.version },
      { prefix: current.prefix, leaseMs: 300, token, random1: 0, random2: 0, candidates: 1 },
      'z',
      0,
      1,
      'ch:z,1,0',
    );
  expect(await pick('long-call')).toEqual({ id: 'z', probe: false });
  const leases = keys.ownLeases('z');
  const first = Number(await redis.zscore(leases, 'long-call'));
  // (a key expiry, once set at twice the term by each pick, ended a lease renewed past it)
  expect(await redis.pttl(leases)).toBe(-1);
  await renewScript(
    redis,
    { version: keys.version },
    { prefix: current.prefix, token: 'long-call', leaseMs: 60_000, sets: 'ch:z', id: 'z' },
  );
  expect(Number(await redis.zscore(leases, 'long-call'))).toBeGreaterThan(first);
  expect(await redis.pttl(leases)).toBe(-1);
  // the only place is held: the next pick finds the channel full
  expect(await pick('next')).toEqual({ wait: -1 });
  const store = createChannelStore(redis, current.prefix);
  await store.create({
    id: 'z',
    upstream: 'ark',
    baseUrl: 'http://127.0.0.1:9',
    keySealed: null,
    keyEnv: null,
    models: null,
    weight: 1,
    priority: 0,
    maxConcurrent: 1,
    maxPerMinute: 0,
    capacityGroup: null,
    timeoutMs: null,
  });
  expect(await store.remove('z')).toBe(true);
  expect(await redis.exists(leases)).toBe(0);
});

test('a per-minute limit spaces the starts: no sliding minute holds more than the limit', async () => {
  const candidates = [channel('a', { sets: [own('a', 0, 1200)] })]; // one start per ~50 ms
  const interval = Math.ceil(60_000 / (1200 - 1));
  const nextAllowed = async () => Number(await redis.get(`${channelKeys(current.prefix).leases('ch:a')}:tat`));
  // after each start, the limit's own record of the next start it allows; each call must have
  // started (by Redis's clock) no earlier than the allowance the call before it left
  let allowed = 0;
  for (let i = 0; i < 6; i++) {
    const { value: startedAt } = await current.router.call(candidates, redisNow, judge);
    expect(startedAt).toBeGreaterThanOrEqual(allowed);
    const next = await nextAllowed();
    expect(next - allowed).toBeGreaterThanOrEqual(interval);
    allowed = next;
  }
});
