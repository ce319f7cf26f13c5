import { Cluster, Redis } from 'ioredis';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startRedis, startRedisCluster, type RedisHandle } from '@relay/testkit';
import { isRedisUnavailable } from './redis-errors.js';
import { luaCommand, runStep, runStepSoon, runSteps } from './lua-command.js';

const incrBy = luaCommand({
  name: 'test.incr-by',
  lua: "return redis.call('INCRBY', KEYS[1], ARGV[1])",
  keys: ['counter'],
  args: ['by'],
  reply: z.number(),
});
const pairs = luaCommand({
  name: 'test.pairs',
  lua: "redis.call('HSET', KEYS[1], unpack(ARGV, 2)) return {ARGV[1], redis.call('HLEN', KEYS[1])}",
  keys: ['hash'],
  args: ['label'],
  rest: true,
  reply: z.tuple([z.string(), z.number()]),
});
const wrongShape = luaCommand({ name: 'test.wrong-shape', lua: "return 'text'", keys: ['any'], args: [], reply: z.number() });
const broken = luaCommand({ name: 'test.broken', lua: "return redis.call('NOPE')", keys: ['any'], args: [], reply: z.unknown() });
const refused = luaCommand({
  name: 'test.refused',
  lua: "redis.call('SET', KEYS[1], 'written') return redis.error_reply('READONLY pretend to be a replica')",
  keys: ['any'],
  args: [],
  reply: z.unknown(),
});
const clock = luaCommand({
  name: 'test.clock',
  lua: "local t = redis.call('TIME') return t[1] .. '.' .. t[2]",
  keys: ['any'],
  args: [],
  reply: z.string(),
});
const tell = luaCommand({
  name: 'test.tell',
  lua: "shared.told = ARGV[1] shared.clock = {'7', '8'} return 1",
  keys: ['any'],
  args: ['what'],
  reply: z.number(),
});
const told = luaCommand({
  name: 'test.told',
  lua: "return shared.told or 'nothing'",
  keys: ['any'],
  args: [],
  reply: z.string(),
});
const nothing = luaCommand({ name: 'test.nothing', lua: 'return nil', keys: ['any'], args: [], reply: z.null() });

describe('on one server', () => {
  // a server of its own: the test counts commands, which other suites would disturb on a shared one
  let handle: RedisHandle;
  let redis: Redis;
  beforeAll(async () => {
    handle = await startRedis({ own: true });
    redis = new Redis(handle.url);
  });
  afterAll(async () => {
    redis?.disconnect();
    await handle?.close();
  });
  /** Runs of a command that worked (an EVALSHA the server answered NOSCRIPT is counted by Redis as a call too, and a failed one). */
  const calls = async (command: 'eval' | 'evalsha') => {
    const stats = new RegExp(`cmdstat_${command}:calls=(\\d+).*failed_calls=(\\d+)`).exec(await redis.info('commandstats'));
    return Number(stats?.[1] ?? 0) - Number(stats?.[2] ?? 0);
  };

  test('a script is sent whole once per connection, then run by its hash, and sent again after the server forgot it', async () => {
    await redis.config('RESETSTAT');
    expect(await incrBy(redis, { counter: 'n' }, { by: 2 })).toBe(2);
    expect(await incrBy(redis, { counter: 'n' }, { by: 2 })).toBe(4);
    expect(await incrBy(redis, { counter: 'n' }, { by: 2 })).toBe(6);
    expect(await calls('eval')).toBe(1);
    expect(await calls('evalsha')).toBe(2);

    await redis.script('FLUSH');
    expect(await incrBy(redis, { counter: 'n' }, { by: 3 })).toBe(9); // NOSCRIPT, then the source again
    expect(await calls('eval')).toBe(2);
  });

  test('keys and arguments go in the order the spec names them, the rest after', async () => {
    expect(await pairs(redis, { hash: 'h' }, { label: 'first' }, 'a', 1, 'b', 2)).toEqual(['first', 2]);
  });

  test('a reply of another shape, or a failing script, is an error naming the script', async () => {
    await expect(wrongShape(redis, { any: 'k' }, {})).rejects.toThrow(/script test.wrong-shape answered "text"/);
    await expect(broken(redis, { any: 'k' }, {})).rejects.toThrow(/unknown redis command/i);
  });

  test('steps go as one script, each answered as its own, a failing one beside the others', async () => {
    const scripts = async () => (await calls('eval')) + (await calls('evalsha'));
    let before = await scripts();
    const [a, b, wrong, failed, c] = await runSteps(redis, [
      incrBy.step({ counter: 'steps' }, { by: 1 }),
      pairs.step({ hash: 'steps:h' }, { label: 'x' }, 'f', 1, 'g', 2),
      wrongShape.step({ any: 'k' }, {}),
      broken.step({ any: 'k' }, {}),
      incrBy.step({ counter: 'steps' }, { by: 10 }),
    ]);
    expect(a).toEqual({ ok: true, value: 1 });
    expect(b).toEqual({ ok: true, value: ['x', 2] });
    expect(wrong).toMatchObject({ ok: false, error: { message: expect.stringMatching(/script test.wrong-shape answered "text"/) } });
    expect(failed).toMatchObject({ ok: false, error: { message: expect.stringMatching(/unknown redis command/i) } });
    // not a transaction: the step after a failure still ran
    expect(c).toEqual({ ok: true, value: 11 });
    // one command for the five (sent whole the first time on a connection: EVAL)
    expect((await scripts()) - before).toBe(1);
    before = await scripts();
    const [again, twice] = await runSteps(redis, [
      incrBy.step({ counter: 'steps' }, { by: 1 }),
      incrBy.step({ counter: 'steps' }, { by: 1 }),
    ]);
    expect([again, twice]).toEqual([
      { ok: true, value: 12 },
      { ok: true, value: 13 },
    ]);
    expect((await scripts()) - before).toBe(1);
    // after the server forgot them, the composed script is sent again
    await redis.script('FLUSH');
    const [third] = await runSteps(redis, [incrBy.step({ counter: 'steps' }, { by: 1 }), nothing.step({ any: 'k' }, {})]);
    expect(third).toEqual({ ok: true, value: 14 });
  });

  test('the steps of one script read the clock once, and share that reading', async () => {
    const times = async () => Number(/cmdstat_time:calls=(\d+)/.exec(await redis.info('commandstats'))?.[1] ?? 0);
    const before = await times();
    const [first, second, third] = await runSteps(redis, [
      clock.step({ any: 'k' }, {}),
      incrBy.step({ counter: 'clocked' }, { by: 1 }),
      clock.step({ any: 'k' }, {}),
    ]);
    expect(first).toMatchObject({ ok: true, value: expect.stringMatching(/^\d+\.\d+$/) });
    expect(third).toEqual(first);
    expect(second).toEqual({ ok: true, value: 1 });
    expect((await times()) - before).toBe(1);
    // each script has its own reading: a later one reads the clock again
    const [later] = await runSteps(redis, [clock.step({ any: 'k' }, {}), nothing.step({ any: 'k' }, {})]);
    expect((await times()) - before).toBe(2);
    expect(later).toMatchObject({ ok: true });
  });

  test('a step tells the later steps of its script what it learned (`shared`), the clock among it; a script alone starts with nothing told', async () => {
    const times = async () => Number(/cmdstat_time:calls=(\d+)/.exec(await redis.info('commandstats'))?.[1] ?? 0);
    const before = await times();
    const [, heard, clocked] = await runSteps(redis, [
      tell.step({ any: 'k' }, { what: 'a lease' }),
      told.step({ any: 'k' }, {}),
      clock.step({ any: 'k' }, {}),
    ]);
    expect(heard).toEqual({ ok: true, value: 'a lease' });
    expect(clocked).toEqual({ ok: true, value: '7.8' });
    expect((await times()) - before).toBe(0);
    expect(await told(redis, { any: 'k' }, {})).toBe('nothing');
    const [alone] = await runSteps(redis, [told.step({ any: 'k' }, {}), nothing.step({ any: 'k' }, {})]);
    expect(alone).toEqual({ ok: true, value: 'nothing' });
  });

  test("a step's nil is null, and its reply error is Redis's own (a READONLY still reads as Redis unavailable)", async () => {
    const [none, readonly, after] = await runSteps(redis, [
      nothing.step({ any: 'k' }, {}),
      refused.step({ any: 'refused' }, {}),
      incrBy.step({ counter: 'after-refused' }, { by: 1 }),
    ]);
    expect(none).toEqual({ ok: true, value: null });
    expect(readonly.ok).toBe(false);
    if (!readonly.ok) {
      expect(readonly.error.name).toBe('ReplyError');
      expect(readonly.error.message).toBe('READONLY pretend to be a replica');
      expect(isRedisUnavailable(readonly.error)).toBe(true);
    }
    expect(after).toEqual({ ok: true, value: 1 });
    // what a step wrote before its error stays written, as it would have as a script of its own
    expect(await redis.get('refused')).toBe('written');
  });

  test('a step that fails a whole script (a connection lost) fails every step', async () => {
    const lost = new Redis(handle.url, { maxRetriesPerRequest: 0, enableOfflineQueue: false, lazyConnect: true });
    const outcomes = await runSteps(lost, [incrBy.step({ counter: 'lost' }, { by: 1 }), nothing.step({ any: 'k' }, {})]);
    expect(outcomes.map((o) => o.ok)).toEqual([false, false]);
    expect(outcomes.every((o) => !o.ok && isRedisUnavailable(o.error))).toBe(true);
    lost.disconnect();
  });

  test('a step sent soon rides in the next script on its connection in the same turn, first; with none, it goes alone once the turn is over', async () => {
    const scripts = async () => (await calls('eval')) + (await calls('evalsha'));
    let before = await scripts();
    const soon = runStepSoon(redis, incrBy.step({ counter: 'soon' }, { by: 1 }));
    const next = runStep(redis, pairs.step({ hash: 'soon:h' }, { label: 'after' }, 'f', 1));
    const [later] = await runSteps(redis, [incrBy.step({ counter: 'soon' }, { by: 10 })]);
    expect(await soon).toBe(1); // before the script it rode with
    expect(await next).toEqual(['after', 1]);
    expect(later).toEqual({ ok: true, value: 11 });
    expect((await scripts()) - before).toBe(2); // the soon step and the next in one, then the last alone

    before = await scripts();
    const alone = runStepSoon(redis, incrBy.step({ counter: 'soon' }, { by: 100 }));
    await new Promise((resolve) => setImmediate(resolve));
    expect(await alone).toBe(111);
    expect((await scripts()) - before).toBe(1);

    // one rides per script (the first), right before its steps with nothing between; the others go alone at the turn's end
    const [a, b] = [
      runStepSoon(redis, incrBy.step({ counter: 'soon' }, { by: 1 })),
      runStepSoon(redis, incrBy.step({ counter: 'soon' }, { by: 2 })),
    ];
    const [c] = await runSteps(redis, [incrBy.step({ counter: 'soon' }, { by: 3 })]);
    expect(c.ok && c.value - (await a)).toBe(3);
    expect(await b).toBeGreaterThan(111);
    expect(await redis.get('soon')).toBe('117');
  });

  test('two different scripts cannot share a name', () => {
    expect(() => luaCommand({ name: 'test.incr-by', lua: 'return 1', keys: ['k'], args: [], reply: z.number() })).toThrow(
      /two scripts are named test.incr-by/,
    );
  });
});

describe('on a cluster', () => {
  let cluster: Awaited<ReturnType<typeof startRedisCluster>>;
  let client: Cluster;
  beforeAll(async () => {
    cluster = await startRedisCluster();
    client = new Cluster([{ host: '127.0.0.1', port: cluster.nodes[0]!.port }]);
  });
  afterAll(async () => {
    client?.disconnect();
    await cluster?.close();
  });

  test('each call goes to the node of its keys, and works again after every node forgot the script', async () => {
    // hash tags that fall in different slots, so on different masters
    const tags = ['{a}', '{b}', '{c}', '{d}'];
    for (const tag of tags) expect(await incrBy(client, { counter: `${tag}:n` }, { by: 5 })).toBe(5);
    await Promise.all(client.nodes('master').map((node) => node.script('FLUSH')));
    for (const tag of tags) expect(await incrBy(client, { counter: `${tag}:n` }, { by: 1 })).toBe(6);
    const holders = await Promise.all(client.nodes('master').map(async (node) => (await node.keys('*:n')).length));
    expect(holders.filter((n) => n > 0).length).toBeGreaterThan(1);
  });

  test("steps whose keys share a slot go together to that slot's node", async () => {
    const outcomes = await runSteps(client, [
      incrBy.step({ counter: '{e}:n' }, { by: 2 }),
      pairs.step({ hash: '{e}:h' }, { label: 'e' }, 'f', 1),
    ]);
    expect(outcomes).toEqual([
      { ok: true, value: 2 },
      { ok: true, value: ['e', 1] },
    ]);
  });
});
