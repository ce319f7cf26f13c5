import { connect } from 'node:net';
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { freePort, startRedis, waitFor, type RedisHandle } from '@relay/testkit';
import { isRedisUnavailable } from './redis-errors.js';

/** Each kind of error met for real, from a real Redis or a real socket: what it is, not what its text says. */
let primary: RedisHandle;
let replica: RedisHandle;
beforeAll(async () => {
  [primary, replica] = await Promise.all([startRedis(), startRedis({ own: true })]);
}, 30_000);
afterAll(async () => {
  await replica?.close();
  await primary?.close();
});

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.fail('it answered'),
    (error: unknown) => error,
  );

test('a write to a replica (a primary since demoted by a failover): READONLY, so unavailable', async () => {
  const { port } = new URL(primary.url);
  const client = new Redis(replica.url);
  try {
    await client.replicaof('127.0.0.1', port);
    const error = await rejection(client.set('k', 'v'));
    expect((error as Error).message).toMatch(/^READONLY /);
    expect(isRedisUnavailable(error)).toBe(true);
  } finally {
    await client.replicaof('NO', 'ONE');
    client.disconnect();
  }
});

test('a reply that is a mistake of the caller (unknown command, wrong type) is not an outage', async () => {
  const client = new Redis(primary.url);
  try {
    expect(isRedisUnavailable(await rejection(client.call('NOSUCHCOMMAND')))).toBe(false);
    await client.set('relay-errors-test', 'text');
    expect(isRedisUnavailable(await rejection(client.hget('relay-errors-test', 'f')))).toBe(false);
  } finally {
    await client.del('relay-errors-test');
    client.disconnect();
  }
});

test("ioredis's own refusals: a closed connection, no connection and no offline queue, retries spent", async () => {
  const closed = new Redis(primary.url);
  await closed.ping();
  closed.disconnect();
  expect(isRedisUnavailable(await rejection(closed.get('k')))).toBe(true);

  const nowhere = `redis://127.0.0.1:${await freePort()}`;
  const failFast = new Redis(nowhere, { enableOfflineQueue: false, lazyConnect: true, retryStrategy: () => null });
  failFast.on('error', () => undefined);
  expect(isRedisUnavailable(await rejection(failFast.get('k')))).toBe(true);
  failFast.disconnect();

  const patient = new Redis(nowhere, { maxRetriesPerRequest: 1, retryStrategy: () => 10 });
  patient.on('error', () => undefined);
  const spent = await rejection(patient.get('k'));
  expect((spent as Error).name).toBe('MaxRetriesPerRequestError');
  expect(isRedisUnavailable(spent)).toBe(true);
  patient.disconnect();
});

test("ioredis's refusals for a Redis Cluster it cannot reach: not ready with no offline queue, no startup node", async () => {
  const nowhere = [{ host: '127.0.0.1', port: await freePort() }];
  const failFast = new Cluster(nowhere, { enableOfflineQueue: false, lazyConnect: true, clusterRetryStrategy: () => null });
  failFast.on('error', () => undefined);
  const notReady = await rejection(failFast.get('k'));
  expect((notReady as Error).message).toMatch(/^Cluster isn't ready/);
  expect(isRedisUnavailable(notReady)).toBe(true);
  failFast.disconnect();

  const queued = new Cluster(nowhere, { clusterRetryStrategy: () => null });
  queued.on('error', () => undefined);
  const noNode = await rejection(queued.get('k'));
  expect((noNode as Error).message).toBe('None of startup nodes is available');
  expect(isRedisUnavailable(noNode)).toBe(true);
  queued.disconnect();
});

test('a pipeline whose connection is lost before its replies: AbortError, so unavailable', async () => {
  const client = new Redis(primary.url, { maxRetriesPerRequest: 1 });
  const killer = new Redis(primary.url);
  try {
    const id = await client.client('ID');
    // no replica: the WAIT blocks until its connection is killed
    // a pipeline's errors are in its replies, not its rejection
    const pending = client
      .pipeline([
        ['incr', 'relay-errors-test:abort'],
        ['wait', '1', '60000'],
      ])
      .exec()
      .then((replies) => replies?.find(([err]) => err)?.[0]);
    await waitFor(async () => ((await killer.client('LIST', 'ID', String(id))) as string).includes('cmd=wait'), 10_000, 'the WAIT blocked');
    await killer.client('KILL', 'ID', String(id));
    const error = await pending;
    expect((error as Error).name).toBe('AbortError');
    expect(isRedisUnavailable(error)).toBe(true);
  } finally {
    await killer.del('relay-errors-test:abort');
    client.disconnect();
    killer.disconnect();
  }
});

test('a socket refused is told by its code; the same words in a message are not', async () => {
  const port = await freePort();
  const refused = await new Promise<Error>((resolve) => connect(port, '127.0.0.1').on('error', resolve));
  expect(isRedisUnavailable(refused)).toBe(true);
  expect(isRedisUnavailable(new Error(`connect ECONNREFUSED 127.0.0.1:${port}`))).toBe(false);
  expect(isRedisUnavailable('ECONNREFUSED')).toBe(false);
});
