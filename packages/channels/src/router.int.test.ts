import { expect, test } from 'vitest';
import { z } from 'zod';
import { luaCommand } from '@relay/core';
import { ChannelsCooling, createChannelRouter, type CallGate, type Candidate } from './router.js';
import { channelKeys } from './keys.js';
import { createChannelStore } from './store.js';
import { readHealth } from './view.js';
import { waitFor } from '@relay/testkit';
import { breaker, channel, own, routerHarness, fail, judge, Upstream } from './router.test-support.js';

/** Routing among channels: weights, failover, breakers, 429 pauses, refused keys (capacity: capacity.int.test.ts). */
const { redis, current, redisNow } = await routerHarness();

/** A call its gate refuses: whether it ran, and what its caller got. */
async function refusedCall(candidates: Candidate[], gate: CallGate) {
  let ran = false;
  const run = async () => {
    ran = true;
    return 'ran';
  };
  const error = await current.router.call(candidates, run, judge, gate).then(
    () => undefined,
    (e: unknown) => e,
  );
  return { ran, error };
}

test('traffic is split by weight among healthy channels of the best tier', async () => {
  const seen: Record<string, number> = { a: 0, b: 0, backup: 0 };
  const candidates = [channel('a', { weight: 3 }), channel('b', { weight: 1 }), channel('backup', { tier: 1 })];
  for (let i = 0; i < 400; i++) await current.router.call(candidates, async (id) => void (seen[id]! += 1), judge);
  expect(seen.backup).toBe(0);
  expect(seen.a! / 400).toBeGreaterThan(0.75 * 0.85);
  expect(seen.a! / 400).toBeLessThan(0.75 * 1.15);
});

test("an exhausted quota takes its channel out until the vendor's reset, with the vendor's reason; the call moves on; an operator clears it", async () => {
  const reason = 'SetLimitExceeded: the account has reached the set usage limit';
  const exhausted = new Upstream({ outcome: 'exhausted', delayMs: 3_600_000, reason, failover: true });
  const before = await redisNow();
  const first = await current.router.call(
    [channel('a', { weight: 1000 }), channel('b')],
    async (id) => {
      if (id === 'a') throw exhausted;
      return id;
    },
    judge,
  );
  expect(first.value).toBe('b');
  const records = [{ id: 'a', disabled: false }] as never;
  const [health] = (await readHealth(redis, current.prefix, records)).values();
  expect(health).toMatchObject({ state: 'exhausted', exhaustedReason: reason });
  expect(health!.openUntil).toBeGreaterThanOrEqual(before + 3_600_000);
  // a alone cannot serve: the caller is told how long (an hour), not made to wait here
  const error = await current.router.call([channel('a')], async () => 'a', judge).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ChannelsCooling);
  expect((error as ChannelsCooling).waitMs).toBeGreaterThan(3_500_000);

  await createChannelStore(redis, current.prefix).clearHealth('a');
  const [cleared] = (await readHealth(redis, current.prefix, records)).values();
  expect(cleared).toMatchObject({ state: 'closed', exhaustedReason: null });
  expect((await current.router.call([channel('a')], async () => 'a', judge)).value).toBe('a');
});

test('a failing channel fails over within the call, opens its breaker, and is taken back by one probe after the cooldown', async () => {
  let broken = true;
  const calls: string[] = [];
  /** Redis's clock (the one the router decides by) at each call that reached a. */
  const reachedA: number[] = [];
  const run = async (id: string) => {
    calls.push(id);
    if (id !== 'a') return;
    reachedA.push(await redisNow());
    if (broken) throw new Upstream(fail);
  };
  const candidates = [channel('a', { weight: 1000 }), channel('b')];
  for (let i = 0; i < 10; i++) expect((await current.router.call(candidates, run, judge)).channel).toBe('b');
  // a answered 500 until its breaker opened (4 calls at >= 50 %): from then on it is reached only by
  // a probe, a cooldown after the failure before it by Redis's clock (10 calls may outlast the
  // 300 ms cooldown on a busy machine: the probe fails and opens it again)
  expect(reachedA.length).toBeGreaterThanOrEqual(4);
  for (let i = 4; i < reachedA.length; i++) expect(reachedA[i]! - reachedA[i - 1]!).toBeGreaterThanOrEqual(breaker.cooldownMs);
  // as the breaker stood at the last failure (by the clock it decides on, not this test's)
  const [health] = (await readHealth(redis, current.prefix, [{ id: 'a', disabled: false } as never], reachedA.at(-1))).values();
  expect(health).toMatchObject({ state: 'open', recentCalls: reachedA.length, recentFailureShare: 1 });
  // the breaker's own clock: open for the cooldown from the failure that opened it
  const openUntil = health!.openUntil!;
  expect(openUntil).toBeGreaterThanOrEqual(reachedA.at(-1)! + breaker.cooldownMs);

  broken = false;
  calls.length = 0;
  // a is not called again until its cooldown has passed (by Redis's clock); then one probe closes it
  while (!calls.includes('a')) await current.router.call(candidates, run, judge);
  expect(reachedA.at(-1)).toBeGreaterThanOrEqual(openUntil);
  calls.length = 0;
  for (let i = 0; i < 10; i++) await current.router.call(candidates, async (id) => void calls.push(id), judge);
  expect(calls.filter((id) => id === 'a').length).toBeGreaterThanOrEqual(9); // weight 1000 again, once the probe closed it
});

test('failures in a row open the breaker however many successes the window holds', async () => {
  const quick = createChannelRouter({
    redis,
    subscriber: current.subscriber,
    prefix: current.prefix,
    leaseMs: 2_000,
    // a cooldown no run of 10 calls outlasts, however slow the machine: no probe comes in between
    breaker: { ...breaker, consecutive: 3, cooldownMs: 3_600_000 },
    shortWaitMs: 100,
  });
  let broken = false;
  const calls: string[] = [];
  const candidates = [channel('a', { weight: 1000 }), channel('b')];
  const call = () =>
    quick.call(
      candidates,
      async (id) => {
        calls.push(id);
        if (id === 'a' && broken) throw new Upstream(fail);
      },
      judge,
    );
  for (let i = 0; i < 50; i++) await call(); // 50 successes of a in the window
  broken = true;
  calls.length = 0;
  for (let i = 0; i < 10; i++) await call();
  expect(calls.filter((id) => id === 'a')).toHaveLength(3);
});

test('a content refusal is no fault of the channel: no failover, the breaker stays closed', async () => {
  const refusal = new Upstream({ outcome: 'ok', failover: false });
  let calls = 0;
  for (let i = 0; i < 6; i++) {
    await expect(
      current.router.call(
        [channel('a'), channel('b')],
        async () => {
          calls += 1;
          throw refusal;
        },
        judge,
      ),
    ).rejects.toBe(refusal);
  }
  expect(calls).toBe(6);
  const health = await readHealth(redis, current.prefix, [
    { id: 'a', disabled: false },
    { id: 'b', disabled: false },
  ] as never);
  expect([...health.values()].every((h) => h.state === 'closed')).toBe(true);
});

test('a 429 cools its channel for the delay it asked: the call moves on, and with no other channel the caller waits', async () => {
  // a minute: no machine is slow enough for it to be over before the next call looks
  const delayMs = 60_000;
  const limited = new Upstream({ outcome: 'limited', delayMs, failover: true });
  const beforeFirst = await redisNow();
  const first = await current.router.call(
    [channel('a', { weight: 1000 }), channel('b')],
    async (id) => {
      if (id === 'a') throw limited;
      return id;
    },
    judge,
  );
  expect(first.value).toBe('b');
  const afterFirst = await redisNow();
  // the channel cools until the deadline the 429 stored: its delay from when it was counted (Redis's clock)
  const until = Number(await redis.hget(channelKeys(current.prefix).health('a'), 'until'));
  expect(until).toBeGreaterThanOrEqual(beforeFirst + delayMs);
  expect(until).toBeLessThanOrEqual(afterFirst + delayMs);
  // only a can serve the next call, and it is cooling longer than a short wait: the caller is told
  // how long, which is what is left of that deadline when the router looked
  const beforeNext = await redisNow();
  const error = await current.router.call([channel('a')], async () => 'a', judge).catch((e: unknown) => e);
  const afterNext = await redisNow();
  expect(error).toBeInstanceOf(ChannelsCooling);
  expect((error as ChannelsCooling).waitMs).toBeGreaterThanOrEqual(until - afterNext);
  expect((error as ChannelsCooling).waitMs).toBeLessThanOrEqual(until - beforeNext);
});

test('after a 429 pause one probe goes first; its failure is counted like any other, not a cooldown', async () => {
  const limited = new Upstream({ outcome: 'limited', delayMs: 80, failover: true });
  const before = await redisNow();
  await expect(
    current.router.call(
      [channel('a')],
      async () => {
        throw limited;
      },
      judge,
    ),
  ).rejects.toBe(limited);
  // paused from the 429 on (judged at a moment before it: the 80 ms may be over by now)
  const [paused] = (await readHealth(redis, current.prefix, [{ id: 'a', disabled: false } as never], before)).values();
  expect(paused!.state).toBe('open');
  expect(paused!.openUntil).toBeGreaterThanOrEqual(before + 80);
  // the pause is short: the router waits it out, and the probe fails with a 500
  await expect(
    current.router.call(
      [channel('a')],
      async () => {
        throw new Upstream(fail);
      },
      judge,
    ),
  ).rejects.toBeInstanceOf(Upstream);
  const [after] = (await readHealth(redis, current.prefix, [{ id: 'a', disabled: false } as never])).values();
  expect(after).toMatchObject({ state: 'closed', recentCalls: 1, recentFailureShare: 1 });
  expect((await current.router.call([channel('a')], async () => 'served', judge)).value).toBe('served');
});

test('401/403 disables the channel in the store; every channel tried: the last error is thrown', async () => {
  const store = createChannelStore(redis, current.prefix);
  await store.create({
    id: 'a',
    upstream: 'ark',
    baseUrl: 'http://a',
    keySealed: 'x',
    keyEnv: null,
    models: null,
    weight: 1,
    priority: 0,
    maxConcurrent: 0,
    maxPerMinute: 0,
    capacityGroup: null,
    timeoutMs: null,
  });
  const before = await store.version();
  const denied = new Upstream({ outcome: 'auth', reason: 'auth: HTTP 401', failover: true });
  await expect(
    current.router.call(
      [channel('a')],
      async () => {
        throw denied;
      },
      judge,
    ),
  ).rejects.toBe(denied);
  expect(await store.get('a')).toMatchObject({ disabled: true, disabledReason: 'auth: HTTP 401' });
  expect(await store.version()).toBeGreaterThan(before);
});

test('a gate is asked in the same round trip as a pick: it sees the lease just taken, or none while every channel is full (then only after the pick that leases); refused, no call is made and the lease goes back uncounted', async () => {
  const keys = channelKeys(current.prefix);
  const candidates = [channel('a', { sets: [own('a', 1)] })];
  /** The gate a job's begin is: true when one of the lease sets holds the pick's token (read on the same connection, after the pick). */
  const seen: Array<{ token: string; sets: string[]; leased: boolean }> = [];
  const leasedGate: CallGate =
    ({ token, sets }) =>
    async () => {
      const scores = await Promise.all(sets.map((set) => redis.zscore(set, token)));
      const leased = scores.some((score) => score !== null);
      seen.push({ token, sets, leased });
      return leased;
    };
  expect((await current.router.call(candidates, async (id) => id, judge, leasedGate)).value).toBe('a');
  expect(seen).toEqual([{ token: expect.any(String), sets: [keys.leases('ch:a')], leased: true }]);

  // a holds its one call: the next call's pick leases nothing, its gate says so, and it waits for
  // the lease back, polling with its picks alone; the gate is asked again after the pick that leases
  let free!: () => void;
  const holding = current.router.call(candidates, () => new Promise<string>((resolve) => (free = () => resolve('held'))), judge);
  while (!free) await new Promise((resolve) => setImmediate(resolve));
  seen.length = 0;
  const scripts = async () => Number(/cmdstat_evalsha:calls=(\d+)/.exec(await redis.info('commandstats'))?.[1] ?? 0);
  const waiting = current.router.call(candidates, async (id) => id, judge, leasedGate);
  while (!seen.length) await new Promise((resolve) => setImmediate(resolve));
  const polled = (await scripts()) + 3;
  while ((await scripts()) < polled) await new Promise((resolve) => setTimeout(resolve, 50)); // three more picks
  free();
  expect((await holding).value).toBe('held');
  expect((await waiting).value).toBe('a');
  expect(seen.map((s) => s.leased)).toEqual([false, true]);

  // refused (a job cancelled or stopped): never run, the error is the caller's, the lease is back and no call was counted
  const refusal = new Error('cancelled');
  const refused = await refusedCall(candidates, () => async () => {
    throw refusal;
  });
  expect(refused).toEqual({ ran: false, error: refusal });
  expect(await redis.zcard(keys.leases('ch:a'))).toBe(0);
  const [health] = (await readHealth(redis, current.prefix, [{ id: 'a', disabled: false } as never])).values();
  expect(health).toMatchObject({ state: 'closed', recentCalls: 3 });
});

/** A gate as a step (as a job's begin is): 1 when one of the lease sets holds the token, 2 for a refusal. */
const leasedStep = luaCommand({
  name: 'test.channels.leased-gate',
  lua: "if ARGV[2] == '1' then return 2 end for i = 3, #ARGV do if redis.call('ZSCORE', ARGV[i], ARGV[1]) then return 1 end end return 0",
  keys: ['routing'],
  args: ['token', 'refuse'],
  rest: true,
  reply: z.literal([0, 1, 2]),
});

test('a gate that answers with a step runs in the same script as the pick, right after it: one command for both', async () => {
  const keys = channelKeys(current.prefix);
  const candidates = [channel('a', { sets: [own('a', 1)] })];
  const refusal = new Error('refused');
  const gate =
    (refuse: boolean): CallGate =>
    ({ token, sets }) => {
      const step = leasedStep.step({ routing: keys.version }, { token, refuse: refuse ? '1' : '0' }, ...sets);
      return {
        ...step,
        parse(raw) {
          const answer = step.parse(raw);
          if (answer === 2) throw refusal;
          return answer === 1;
        },
      };
    };
  // every script run on this router's keys, as Redis's MONITOR sees them sent (a script's own commands are not sent)
  const monitor = await redis.duplicate().monitor();
  const sent: string[][] = [];
  monitor.on('monitor', (_time: string, args: string[]) => {
    if (args.some((arg) => String(arg).includes(current.prefix))) sent.push(args.map(String));
  });
  try {
    expect((await current.router.call(candidates, async (id) => id, judge, gate(false))).value).toBe('a');
    await waitFor(async () => (await redis.zcard(keys.leases('ch:a'))) === 0, 10_000, 'the lease back'); // given back on the side
    const marker = `${current.prefix}:seen`;
    await redis.get(marker);
    await waitFor(() => sent.some((args) => args[1] === marker), 10_000, 'MONITOR to show the marker read');
    const scripts = sent.filter((args) => /^eval(sha)?$/i.test(args[0]!));
    // the pick with its gate, then the release: two scripts, not three
    expect(scripts).toHaveLength(2);

    // refused: never run, the error is the caller's, the lease is back and counted as no call
    expect(await refusedCall(candidates, gate(true))).toEqual({ ran: false, error: refusal });
    expect(await redis.zcard(keys.leases('ch:a'))).toBe(0);
  } finally {
    monitor.disconnect();
  }
});

test("a healthy channel's breaker window keeps no bucket past the window: the call that opens a bucket drops the old ones and moves its expiry on", async () => {
  const window = channelKeys(current.prefix).window('tidy');
  // buckets from long ago, as a window holds them after a quiet spell
  await redis.hset(window, '1:n', 5, '1:f', 2, '2:n', 1);
  await current.router.call([channel('tidy')], async () => 'ok', judge);
  // an answer's lease goes back with the process's next script, or alone at the end of the turn
  await new Promise((resolve) => setImmediate(resolve));
  const fields = await redis.hkeys(window);
  expect(fields).toHaveLength(1);
  expect(fields[0]).toMatch(/^\d+:n$/);
  expect(Number(fields[0]!.split(':')[0])).toBeGreaterThan(2);
  expect(await redis.pttl(window)).toBeGreaterThan(0);
});
