import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { LedgerEntry } from '@relay/billing';
import { spawnApp, waitFor, type AppProcess } from '@relay/testkit';
import { postJson, startStack, type Stack } from './stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ tuning: { api: { jobAttempts: 3 } } });
}, 60_000);
afterAll(async () => stack?.close());

const images = (key: string, body: Record<string, unknown>, base = stack.url) => postJson(`${base}/v1/images/generations`, body, key);
const forJob = (ledger: LedgerEntry[], type: LedgerEntry['type']) => ledger.filter((e) => e.type === type && e.jobId);
const sum = (entries: LedgerEntry[]) => entries.reduce((total, e) => total + e.amount, 0);

test('200 simultaneous requests, money for exactly 50: 50 succeed, 150 get 402, the balance ends at 0', async () => {
  const price = 30_000; // vendor-gen-4-0 per image
  const { key, accountId } = await stack.newKey({ balance: 50 * price });
  const answers = await Promise.all(Array.from({ length: 200 }, () => images(key, { model: 'vendor-gen-4-0-250828', prompt: 'a bee' })));
  const statuses = answers.map((r) => r.status);
  expect(statuses.filter((s) => s === 200)).toHaveLength(50);
  expect(statuses.filter((s) => s === 402)).toHaveLength(150);
  const refused = answers.find((r) => r.status === 402)!;
  expect(await refused.json()).toMatchObject({ error: { type: 'insufficient_balance', code: 'insufficient_balance' } });
  await Promise.all(answers.map((r) => r.arrayBuffer().catch(() => undefined)));

  const account = await stack.account(accountId);
  expect(account).toMatchObject({ balance: 0, reserved: 0, spent: 50 * price });
  expect(forJob(account.ledger, 'settle')).toHaveLength(50);
  expect(forJob(account.ledger, 'reserve')).toHaveLength(50);
  // the ledger explains every change: all entries sum to the balance, the job entries to the spend
  expect(sum(account.ledger)).toBe(account.balance);
  expect(sum(account.ledger.filter((e) => e.type !== 'credit'))).toBe(-50 * price);
});

describe('a sequential set is charged for what was delivered', () => {
  const price = 40_000; // vendor-gen-4-5
  const set = { model: 'vendor-gen-4-5-251128', prompt: 'a story in 3 images', sequential_image_generation: 'auto' };

  test('15 reserved, 3 made, 1 failed: 2 charged, the rest released', async () => {
    const { key, accountId } = await stack.newKey({ balance: 1_000_000 });
    await stack.fault({ type: 'image-error', api: 'images', index: 1, code: 'OutputImageSensitiveContentDetected' });
    const res = await images(key, set);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: unknown[] }).data).toHaveLength(2);
    const { balance, reserved, ledger } = await stack.account(accountId);
    const [reserve] = forJob(ledger, 'reserve');
    const [settle] = forJob(ledger, 'settle');
    expect(reserve).toMatchObject({ amount: -15 * price, units: '15 images' });
    expect(settle).toMatchObject({ charged: 2 * price, amount: 13 * price, units: '2 images', jobId: reserve!.jobId });
    expect({ balance, reserved }).toEqual({ balance: 1_000_000 - 2 * price, reserved: 0 });
  });

  test('an upstream failure releases everything', async () => {
    const { key, accountId } = await stack.newKey({ balance: 1_000_000 });
    await stack.fault({ type: 'error', api: 'images', status: 500, times: 3 });
    expect((await images(key, set)).status).toBe(502);
    const { balance, reserved, ledger } = await stack.account(accountId);
    expect({ balance, reserved }).toEqual({ balance: 1_000_000, reserved: 0 });
    expect(forJob(ledger, 'release')).toEqual([expect.objectContaining({ amount: 15 * price, charged: 0 })]);
  });

  test('a worker retry is charged once', async () => {
    const { key, accountId } = await stack.newKey({ balance: 1_000_000 });
    await stack.fault({ type: 'error', api: 'images', status: 500, times: 2 });
    expect((await images(key, { ...set, prompt: 'a story in 2 images' })).status).toBe(200);
    const { ledger, spent } = await stack.account(accountId);
    expect(forJob(ledger, 'settle')).toHaveLength(1);
    expect(spent).toBe(2 * price);
  });

  test('a moderated request costs nothing', async () => {
    const { key, accountId } = await stack.newKey({ balance: 1_000_000 });
    await stack.fault({ type: 'error', api: 'images', status: 400, code: 'InputTextSensitiveContentDetected' });
    expect((await images(key, set)).status).toBe(400);
    expect(await stack.account(accountId)).toMatchObject({ balance: 1_000_000, reserved: 0, spent: 0 });
  });
});

test('speech is charged from usageMetadata: input at 0.50 and audio at 10.00 per million tokens', async () => {
  const { key, accountId } = await stack.newKey({ balance: 1_000_000 });
  const res = await fetch(`${stack.url}/v1beta/models/vendor-2.5-flash-preview-tts:generateContent`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': key },
    body: JSON.stringify({
      contents: [{ parts: [{ text: 'Read slowly: the quick brown fox jumps over the lazy dog.' }] }],
      generationConfig: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } } },
    }),
  });
  const { usageMetadata: usage } = (await res.json()) as { usageMetadata: { promptTokenCount: number; candidatesTokenCount: number } };
  const expected = Math.ceil((usage.promptTokenCount * 500_000) / 1e6) + Math.ceil((usage.candidatesTokenCount * 10_000_000) / 1e6);
  const { ledger, balance, reserved } = await stack.account(accountId);
  expect(forJob(ledger, 'settle')).toEqual([
    expect.objectContaining({ charged: expected, units: `in:${usage.promptTokenCount},out:${usage.candidatesTokenCount}` }),
  ]);
  expect({ balance, reserved }).toEqual({ balance: 1_000_000 - expected, reserved: 0 });
});

test('speech without the money for its worst case: 402 in the Google dialect', async () => {
  const { key } = await stack.newKey({ balance: 1_000 });
  const res = await fetch(`${stack.url}/v1beta/models/vendor-2.5-flash-preview-tts:generateContent?key=${key}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      contents: [{ parts: [{ text: 'Hi' }] }],
      generationConfig: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } } },
    }),
  });
  expect(res.status).toBe(402);
  expect(await res.json()).toMatchObject({
    error: {
      code: 402,
      status: 'FAILED_PRECONDITION',
      details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'INSUFFICIENT_BALANCE' }],
    },
  });
});

describe('per-key rate limit', () => {
  let second: AppProcess;
  beforeAll(async () => {
    second = await spawnApp('api', { ...stack.env, PORT: '0', ADMIN_TOKEN: stack.adminToken });
  }, 60_000);
  afterAll(async () => second?.stop());

  test('limit N, N+5 requests across two api processes: exactly 5 get 429, and Retry-After is enough', async () => {
    // one request every 6 s once the burst is spent: the burst below is far quicker than that
    const limit = 10;
    const { key } = await stack.newKey({ rateLimitPerMinute: limit });
    const bases = [stack.url, second.ready.url!];
    const body = { model: 'vendor-gen-4-0-250828', prompt: 'a wave' };
    // async, so every answer comes at once: the clock below runs from the refusals, not from generations
    const asyncImages = (base: string) => postJson(`${base}/v1/images/generations`, body, key, { Prefer: 'respond-async' });
    const answers = await Promise.all(Array.from({ length: limit + 5 }, (_, i) => asyncImages(bases[i % 2]!)));
    const limited = answers.filter((r) => r.status === 429);
    expect(limited).toHaveLength(5);
    expect(answers.filter((r) => r.status === 202)).toHaveLength(limit);
    const retryMs = Math.max(...limited.map((r) => Number(r.headers.get('retry-after-ms'))));
    for (const r of limited) {
      expect(Number(r.headers.get('retry-after'))).toBe(Math.ceil(Number(r.headers.get('retry-after-ms')) / 1000));
      expect(await r.json()).toMatchObject({ error: { type: 'rate_limit_error' } });
    }
    expect(retryMs).toBeGreaterThan(0);
    expect(retryMs).toBeLessThanOrEqual(60_000 / limit);
    await Promise.all(answers.map((r) => r.arrayBuffer().catch(() => undefined)));

    // Retry-After counted on the limiter's own clock (Redis's) from a moment after every refusal
    const redis = new Redis(stack.redis.url);
    try {
      const redisNow = async () => {
        const [seconds, micros] = await redis.time();
        return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
      };
      const retryAt = (await redisNow()) + retryMs;
      await waitFor(async () => (await redisNow()) >= retryAt, 60_000, "the Retry-After to pass on Redis's clock");
    } finally {
      redis.disconnect();
    }
    // one token came back: of two requests arriving together (on two processes) exactly one passes;
    // the limit is decided on arrival, so how long the passing one takes to run does not matter
    const pair = await Promise.all([asyncImages(bases[1]!), asyncImages(bases[0]!)]);
    expect(pair.map((r) => r.status).sort()).toEqual([202, 429]);
    await Promise.all(pair.map((r) => r.arrayBuffer()));
  });

  test('speech answers 429 as RESOURCE_EXHAUSTED with a RetryInfo', async () => {
    const { key } = await stack.newKey({ rateLimitPerMinute: 1 });
    const call = () =>
      fetch(`${second.ready.url}/v1beta/models/vendor-2.5-flash-preview-tts:generateContent`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': key },
        body: '{}',
      });
    expect((await call()).status).toBe(400);
    const res = await call();
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(50);
    expect(await res.json()).toMatchObject({
      error: { code: 429, status: 'RESOURCE_EXHAUSTED', details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo' }] },
    });
  });
});
