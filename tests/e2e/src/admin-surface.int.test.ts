import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Redis } from 'ioredis';
import { MAX_MICRO_UNITS } from '@relay/core';
import { startStack, type Stack } from './stack.js';

/**
 * The admin surface as a browser and a guesser meet it: the token only in headers a page of
 * another site cannot set (a remembered Basic password opens the dashboard's pages, nothing that
 * changes state), JSON or no body on every request that changes state, no framing, no
 * X-Powered-By, wrong credentials limited per client address, and money held to its ceiling.
 * TRUST_PROXY lets each test speak from an address of its own (X-Forwarded-For).
 */
let stack: Stack;
let key: string;
let accountId: string;
beforeAll(async () => {
  stack = await startStack({ api: { TRUST_PROXY: 'true' } });
  ({ key, accountId } = await stack.newKey());
}, 60_000);
afterAll(async () => stack?.close());

let addresses = 0;
/** An address no other test uses (TEST-NET-3). */
const freshAddress = () => `203.0.113.${++addresses}`;
const from = (address: string) => ({ 'x-forwarded-for': address });
const bearer = () => ({ authorization: `Bearer ${stack.adminToken}` });
const basic = (password = stack.adminToken) => ({ authorization: `Basic ${Buffer.from(`admin:${password}`).toString('base64')}` });

async function openAIError(res: Response, status: number) {
  expect(res.status).toBe(status);
  return ((await res.json()) as { error: { message: string; type: string; code: string } }).error;
}

const queueCounts = async () =>
  (
    (await (await fetch(`${stack.url}/admin/queues/api/queues`, { headers: bearer() })).json()) as {
      queues: Array<{ name: string; counts: Record<string, number> }>;
    }
  ).queues.map((q) => [q.name, q.counts]);

describe('the token only in a header a browser does not send by itself', () => {
  test("a Basic password opens the dashboard's pages and reads, and nothing that changes state", async () => {
    expect((await fetch(`${stack.url}/admin/queues`, { headers: basic() })).status).toBe(200);
    expect((await fetch(`${stack.url}/admin/queues/api/queues`, { headers: basic() })).status).toBe(200);

    // the dashboard's own actions: a page of another site could make the browser send them with its remembered password
    const clean = await fetch(`${stack.url}/admin/queues/api/queues/speech/clean/failed`, { method: 'PUT', headers: basic() });
    expect((await openAIError(clean, 401)).message).toMatch(
      /Basic password only to look \(GET\); its actions take it as Authorization: Bearer/,
    );
    expect(clean.headers.get('www-authenticate')).toMatch(/^Bearer/); // no Basic prompt for an action
    const before = await queueCounts();
    const add = await fetch(`${stack.url}/admin/queues/api/queues/images/add`, {
      method: 'POST',
      headers: { ...basic(), 'content-type': 'text/plain' },
      body: JSON.stringify({ name: 'planted', data: {} }),
    });
    expect(add.status).toBe(401);
    expect(await queueCounts()).toEqual(before);
    // the same action with the token in a header
    expect((await fetch(`${stack.url}/admin/queues/api/queues/speech/clean/failed`, { method: 'PUT', headers: bearer() })).status).toBe(
      200,
    );
    expect(
      (
        await fetch(`${stack.url}/admin/queues/api/queues/speech/clean/failed`, {
          method: 'PUT',
          headers: { 'x-admin-token': stack.adminToken },
        })
      ).status,
    ).toBe(200);
  });

  test('the admin API takes no Basic password at all, not even to read', async () => {
    const read = await fetch(`${stack.url}/admin/accounts/${accountId}`, { headers: basic() });
    expect((await openAIError(read, 401)).message).toMatch(/never as a Basic password/);
    const credit = await fetch(`${stack.url}/admin/accounts/${accountId}/credits`, {
      method: 'POST',
      headers: { ...basic(), 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 1 }),
    });
    expect(credit.status).toBe(401);
    expect((await fetch(`${stack.url}/admin/accounts/${accountId}`, { headers: bearer() })).status).toBe(200);
  });
});

describe('JSON or nothing on every request that changes state', () => {
  test.each<[string, string, Record<string, string>, string]>([
    ['text/plain (a form of another site)', '/admin/accounts', { 'content-type': 'text/plain' }, '{"name":"planted"}'],
    ['urlencoded', '/admin/accounts', { 'content-type': 'application/x-www-form-urlencoded' }, 'name=planted'],
    ['multipart', '/admin/accounts', { 'content-type': 'multipart/form-data; boundary=x' }, '--x\r\n\r\nplanted\r\n--x--'],
    ['a body with no Content-Type', '/admin/accounts', {}, '{"name":"planted"}'],
    ['text/plain on a route that takes no body', '/admin/batches/batch_nothing/cancel', { 'content-type': 'text/plain' }, ''],
    ['text/plain to the dashboard', '/admin/queues/api/queues/images/add', { 'content-type': 'text/plain' }, '{"name":"planted"}'],
  ])('%s: 415 in the admin API error format', async (_label, path, headers, body) => {
    const before = await queueCounts();
    const res = await fetch(`${stack.url}${path}`, { method: 'POST', headers: { ...bearer(), ...headers }, body });
    const error = await openAIError(res, 415);
    expect(error).toMatchObject({ type: 'invalid_request_error', code: 'unsupported_media_type' });
    expect(error.message).toMatch(/application\/json/);
    expect(await queueCounts()).toEqual(before);
  });

  test('a request with no body needs no Content-Type; JSON passes', async () => {
    expect((await fetch(`${stack.url}/admin/keys/key_nothing`, { method: 'DELETE', headers: bearer() })).status).toBe(404);
    expect(
      (await fetch(`${stack.url}/admin/accounts/${accountId}`, { headers: { ...bearer(), 'content-type': 'text/plain' } })).status,
    ).toBe(200);
    const made = await stack.admin('POST', '/accounts', { name: 'json passes' });
    expect(made.status).toBe(201);
  });
});

test("admin answers can't be framed; no answer says X-Powered-By", async () => {
  const answers = [
    await fetch(`${stack.url}/admin/queues`, { headers: basic() }),
    await fetch(`${stack.url}/admin/queues`),
    await fetch(`${stack.url}/admin/accounts/${accountId}`, { headers: bearer() }),
    await fetch(`${stack.url}/admin/accounts`, { method: 'POST', headers: { ...bearer(), 'content-type': 'text/plain' }, body: 'x' }),
  ];
  for (const res of answers) {
    expect(res.headers.get('content-security-policy'), res.url).toBe("frame-ancestors 'none'");
    expect(res.headers.get('x-frame-options'), res.url).toBe('DENY');
  }
  const others = [
    await fetch(`${stack.url}/healthz`),
    await fetch(`${stack.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } }),
    await fetch(`${stack.url}/nothing-here`),
    await fetch(`${stack.sim.url}/_sim/stats`),
  ];
  for (const res of [...answers, ...others]) expect(res.headers.get('x-powered-by'), res.url).toBeNull();
});

describe('failed authentications are limited per client address', () => {
  const metric = async (credential: string, outcome: string) => {
    const text = await (await fetch(`${stack.url}/metrics`)).text();
    const line = text
      .split('\n')
      .find(
        (l) => l.startsWith('relay_auth_failures_total{') && l.includes(`credential="${credential}"`) && l.includes(`outcome="${outcome}"`),
      );
    return Number(line?.split(' ').pop() ?? 0);
  };

  test('ten wrong admin tokens from one address: then 429 with Retry-After for any token from it, until its window ends', async () => {
    const guesser = freshAddress();
    const [refusedBefore, limitedBefore] = [await metric('admin', 'refused'), await metric('admin', 'limited')];
    for (let i = 0; i < 10; i++) {
      const res = await fetch(`${stack.url}/admin/accounts/${accountId}`, {
        headers: { ...from(guesser), authorization: `Bearer wrong-${i}` },
      });
      expect((await openAIError(res, 401)).message).toMatch(/wrong admin token/);
    }
    // the right token too: from this address nothing is checked now, so nothing is learned
    for (const headers of [bearer(), { 'x-admin-token': 'wrong' }]) {
      const res = await fetch(`${stack.url}/admin/accounts/${accountId}`, { headers: { ...from(guesser), ...headers } });
      const error = await openAIError(res, 429);
      expect(error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limited' });
      expect(error.message).toMatch(/too many wrong admin tokens from this address \(10 within 60 s\)/);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    }
    // the dashboard and a state change the same
    expect((await fetch(`${stack.url}/admin/queues`, { headers: { ...from(guesser), ...basic() } })).status).toBe(429);
    expect(
      (
        await fetch(`${stack.url}/admin/accounts`, {
          method: 'POST',
          headers: { ...from(guesser), ...bearer(), 'content-type': 'application/json' },
          body: '{}',
        })
      ).status,
    ).toBe(429);
    // another address is not held back by it
    expect((await fetch(`${stack.url}/admin/accounts/${accountId}`, { headers: { ...from(freshAddress()), ...bearer() } })).status).toBe(
      200,
    );
    expect(await metric('admin', 'refused')).toBe(refusedBefore + 10);
    expect(await metric('admin', 'limited')).toBe(limitedBefore + 4);

    // what Redis holds of it lapses with its window
    const redis = new Redis(stack.redis.url);
    try {
      const ttl = await redis.pttl(`${stack.env.REDIS_PREFIX}:authfail:admin:${guesser}`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
    } finally {
      redis.disconnect();
    }
  });

  test("thirty wrong API keys from one address: then 429 for every key from it, in each door's own dialect", async () => {
    const guesser = freshAddress();
    for (let i = 0; i < 30; i++) {
      const res = await fetch(`${stack.url}/v1/models`, { headers: { ...from(guesser), authorization: `Bearer rk_wrong-${i}` } });
      expect(res.status).toBe(401);
    }
    const openai = await fetch(`${stack.url}/v1/models`, { headers: { ...from(guesser), authorization: `Bearer ${key}` } });
    expect(await openAIError(openai, 429)).toMatchObject({
      type: 'rate_limit_error',
      message: expect.stringMatching(/too many wrong API keys/),
    });
    expect(Number(openai.headers.get('retry-after'))).toBeGreaterThan(0);
    const google = await fetch(`${stack.url}/v1beta/models`, { headers: { ...from(guesser), 'x-goog-api-key': key } });
    expect(google.status).toBe(429);
    expect(((await google.json()) as { error: { status: string; details: Array<{ '@type': string }> } }).error).toMatchObject({
      status: 'RESOURCE_EXHAUSTED',
      details: [expect.objectContaining({ '@type': 'type.googleapis.com/google.rpc.RetryInfo' })],
    });
    expect(google.headers.get('retry-after')).not.toBeNull();
    // a missing key is no guess: still its own 401
    expect((await fetch(`${stack.url}/v1/models`, { headers: from(guesser) })).status).toBe(401);
    // the admin token is counted apart: this address's operator still gets in
    expect((await fetch(`${stack.url}/admin/accounts/${accountId}`, { headers: { ...from(guesser), ...bearer() } })).status).toBe(200);
    expect((await fetch(`${stack.url}/v1/models`, { headers: { ...from(freshAddress()), authorization: `Bearer ${key}` } })).status).toBe(
      200,
    );
    expect(await metric('key', 'limited')).toBeGreaterThanOrEqual(2);
  });
});

test('credits are held to the ceiling: three of Number.MAX_SAFE_INTEGER are refused, and a debit of 1 at the ceiling shows', async () => {
  const { accountId: id } = await stack.newKey({ balance: 0 });
  const credit = (amount: number) => stack.admin('POST', `/accounts/${id}/credits`, { amount });
  for (let i = 0; i < 3; i++) {
    const error = await openAIError(await credit(Number.MAX_SAFE_INTEGER), 400);
    expect(error.message).toMatch(/at most 1000000000000000 micro-units/);
  }
  expect((await credit(MAX_MICRO_UNITS)).status).toBe(200);
  const past = await openAIError(await credit(1), 400);
  expect(past.message).toMatch(/past 1000000000000000 micro-units .* nothing was credited/);
  const debited = (await (await credit(-1)).json()) as { balance: number };
  expect(debited.balance).toBe(MAX_MICRO_UNITS - 1);
  expect((await stack.account(id)).balance).toBe(MAX_MICRO_UNITS - 1);
});
