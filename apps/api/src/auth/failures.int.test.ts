import type { Request } from 'express';
import { Redis } from 'ioredis';
import { Counter, Registry } from 'prom-client';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import type { Logger } from '@relay/core';
import { startRedis, uniqueName, type RedisHandle } from '@relay/testkit';
import { AUTH_FAILURE_WINDOW_SECONDS, AUTH_FAILURES_ALLOWED, clientAddress, createAuthFailures } from './failures.js';

let handle: RedisHandle;
let redis: Redis;
beforeAll(async () => {
  handle = await startRedis();
  redis = new Redis(handle.url);
});
afterAll(async () => {
  redis?.disconnect();
  await handle?.close();
});

const request = (ip: string) => ({ ip, socket: {} }) as unknown as Request;

test('an address is counted as itself, an IPv6 one by its /64, anything else by a hash: no key holds what a client wrote', () => {
  expect(clientAddress(request('198.51.100.7'))).toBe('198.51.100.7');
  expect(clientAddress(request('::ffff:198.51.100.7'))).toBe('198.51.100.7');
  expect(clientAddress(request('2001:db8:1:2:aaaa::1'))).toBe('2001:db8:1:2::/64');
  expect(clientAddress(request('2001:0db8:0001:0002:ffff:ffff:ffff:ffff'))).toBe('2001:db8:1:2::/64');
  expect(clientAddress(request('2001:db8::1'))).toBe('2001:db8:0:0::/64');
  expect(clientAddress(request('::1'))).toBe('0:0:0:0::/64');
  expect(clientAddress(request('fe80::1%eth0'))).toBe('fe80:0:0:0::/64');
  const forged = clientAddress(request(`evil ${'x'.repeat(10_000)}`));
  expect(forged).toMatch(/^other:[0-9a-f]{16}$/);
  expect(clientAddress(request(''))).toMatch(/^other:[0-9a-f]{16}$/);
});

test('the failures of an address are counted in Redis under a key that lapses with its window; the moment it is shut out is logged once', async () => {
  const prefix = uniqueName('authfail');
  const registry = new Registry();
  const counted = new Counter({ name: 'failures', help: 'x', labelNames: ['credential', 'outcome'] as const, registers: [registry] });
  const warnings: Array<[Record<string, unknown>, string]> = [];
  const log = { warn: (fields: Record<string, unknown>, message: string) => warnings.push([fields, message]) } as unknown as Logger;
  const failures = createAuthFailures(redis, prefix, counted, log);
  const guesser = request('198.51.100.20');
  const allowed = AUTH_FAILURES_ALLOWED.admin;

  for (let i = 0; i < allowed; i++) {
    await failures.admit('admin', guesser);
    await failures.failed('admin', guesser, `req-${i}`);
  }
  const refused = failures.admit('admin', guesser);
  await expect(refused).rejects.toMatchObject({ status: 429, code: 'rate_limited' });
  const { retryAfterMs } = (await refused.catch((e: unknown) => e)) as { retryAfterMs: number };
  expect(retryAfterMs).toBeGreaterThan(0);
  expect(retryAfterMs).toBeLessThanOrEqual(AUTH_FAILURE_WINDOW_SECONDS * 1000);
  // the other kind and another address are apart
  await failures.admit('key', guesser);
  await failures.admit('admin', request('198.51.100.21'));

  const keys = await redis.keys(`${prefix}:*`);
  expect(keys).toEqual([`${prefix}:authfail:admin:198.51.100.20`]);
  const ttl = await redis.pttl(keys[0]!);
  expect(ttl).toBeGreaterThan(0);
  expect(ttl).toBeLessThanOrEqual(AUTH_FAILURE_WINDOW_SECONDS * 1000);

  expect(warnings).toHaveLength(1);
  expect(warnings[0]![0]).toMatchObject({
    credential: 'admin',
    address: '198.51.100.20',
    failures: allowed,
    requestId: `req-${allowed - 1}`,
  });
  const values = (await counted.get()).values.map((v) => [v.labels.outcome, v.value]);
  expect(values).toEqual(
    expect.arrayContaining([
      ['refused', allowed],
      ['limited', 1],
    ]),
  );

  // its window over (the key gone, as it lapses): the address may try again
  await redis.del(keys[0]!);
  await failures.admit('admin', guesser);
});

test("an address's checks that come while one is asked share it; each refused request is refused and counted", async () => {
  const prefix = uniqueName('authfail');
  const registry = new Registry();
  const counted = new Counter({ name: 'failures', help: 'x', labelNames: ['credential', 'outcome'] as const, registers: [registry] });
  const failures = createAuthFailures(redis, prefix, counted, { warn: () => {} } as unknown as Logger);
  const client = request('198.51.100.30');
  await failures.admit('key', client);
  // the count is read with a GET of this client's (the window's end only once it is up)
  const reads = vi.spyOn(redis, 'get');
  await Promise.all(Array.from({ length: 20 }, () => failures.admit('key', client)));
  expect(reads).toHaveBeenCalledTimes(1);
  reads.mockRestore();
  // the next check, once that one answered, asks again: a shut-out address is refused at once
  for (let i = 0; i < AUTH_FAILURES_ALLOWED.key; i++) await failures.failed('key', client);
  const refused = await Promise.all(Array.from({ length: 5 }, () => failures.admit('key', client).catch((e: unknown) => e)));
  expect(refused).toEqual(Array(5).fill(expect.objectContaining({ status: 429, code: 'rate_limited' })));
  expect(new Set(refused).size).toBe(5);
  expect((await counted.get()).values.find((v) => v.labels.outcome === 'limited')?.value).toBe(5);
});
