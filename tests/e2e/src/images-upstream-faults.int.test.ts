import { Queue } from 'bullmq';
import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest';
import { waitFor } from '@relay/testkit';
import { redisConnectionOptions } from '@relay/core';
import { bullPrefix, parseFileId } from '@relay/jobs';
import { postJson, startStack, type Stack } from './stack.js';
import { admin } from './channel-sims.js';

let stack: Stack;
let key: string;
beforeAll(async () => {
  // links die after 2 s here, to show the relay's copies outlive them
  stack = await startStack({ simulator: { SIM_URL_TTL_SECONDS: '2' }, tuning: { api: { jobAttempts: 4 } } });
  ({ key } = await stack.newKey());
}, 60_000);
afterAll(async () => stack?.close());
beforeEach(async () => {
  await fetch(`${stack.sim.url}/_sim/reset`, { method: 'POST' });
  // each test counts the upstream calls its faults cause: the failures of the tests before must
  // not have opened the channel's breaker (tests/e2e/src/channels.int.test.ts is where it opens)
  await stack.resetBreakers();
});

const generate = () => postJson(`${stack.url}/v1/images/generations`, { model: 'vendor-gen-5-0-260128', prompt: 'a kite' }, key);
const simStats = async () =>
  (await (await fetch(`${stack.sim.url}/_sim/stats`)).json()) as { requests: { images: number }; statuses: Record<string, number> };

test('500 twice, then success: the client sees only the success', async () => {
  await stack.fault({ type: 'error', api: 'images', status: 500, times: 2 });
  const res = await generate();
  expect(res.status).toBe(200);
  expect((await simStats()).statuses).toMatchObject({ 500: 2, 200: 1 });
});

test('500 until the attempts run out: 502, and the SDK is told not to retry', async () => {
  await stack.fault({ type: 'error', api: 'images', status: 500, times: 10 });
  const res = await generate();
  expect(res.status).toBe(502);
  expect(res.headers.get('x-should-retry')).toBe('false');
  const body = (await res.json()) as { error: { type: string; code: string; message: string } };
  expect(body.error).toMatchObject({ type: 'server_error', code: 'upstream_failed' });
  expect(body.error.message).toMatch(/after 4 of 4 attempts/);
  expect((await simStats()).requests.images).toBe(4);
  await fetch(`${stack.sim.url}/_sim/faults`, { method: 'DELETE' });
});

test('429 twice, then success: the queue waits it out, no 429 reaches the client', async () => {
  await stack.fault({ type: 'error', api: 'images', status: 429, code: 'ModelAccountIpmRateLimitExceeded', times: 2 });
  const res = await generate();
  expect(res.status).toBe(200);
  expect((await simStats()).statuses).toMatchObject({ 429: 2, 200: 1 });
  // Ark sends no Retry-After: each 429 pauses the channel for the stack's rateLimitDelayMs (200
  // here), which the upstream's own log shows between the end of one call and the next
  const calls = await stack.simCalls();
  expect(calls.map((c) => c.status)).toEqual([429, 429, 200]);
  for (let i = 1; i < calls.length; i++) expect(calls[i]!.startedAt - calls[i - 1]!.endedAt).toBeGreaterThanOrEqual(200);
});

test('429s spend no attempts: five of them and three 500s still fit in four attempts', async () => {
  await stack.fault([
    { type: 'error', api: 'images', status: 429, times: 5 },
    { type: 'error', api: 'images', status: 500, times: 3 },
  ]);
  const res = await generate();
  expect(res.status).toBe(200);
  expect((await simStats()).statuses).toMatchObject({ 429: 5, 500: 3, 200: 1 });
});

test('a dropped connection is retried like a 500', async () => {
  await stack.fault([{ type: 'drop', api: 'images' }]);
  const res = await generate();
  expect(res.status).toBe(200);
  expect((await simStats()).requests.images).toBe(2);
});

test('moderation: 400 with the upstream code, and no retry', async () => {
  await stack.fault({ type: 'error', api: 'images', status: 400, code: 'InputTextSensitiveContentDetected' });
  const res = await generate();
  expect(res.status).toBe(400);
  const body = (await res.json()) as { error: { type: string; code: string } };
  expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'InputTextSensitiveContentDetected' });
  expect((await simStats()).requests.images).toBe(1);
});

test("a refused relay key upstream is the operator's problem: 502, not the client's 401", async () => {
  await stack.fault({ type: 'error', api: 'images', status: 401, code: 'AuthenticationError' });
  const res = await generate();
  expect(res.status).toBe(502);
  expect(((await res.json()) as { error: { code: string; message: string } }).error).toMatchObject({
    code: 'upstream_misconfigured',
    message: expect.stringMatching(/HTTP 401 AuthenticationError/),
  });
  // a refused key takes its channel out of service until an operator puts it back
  const channel = (await (await stack.admin('GET', '/channels/ark')).json()) as { state: string; disabledReason: string };
  expect(channel).toMatchObject({ state: 'disabled', disabledReason: expect.stringMatching(/^auth: HTTP 401/) });
  await admin(stack, 'PATCH', '/channels/ark', { disabled: false });
});

test("the relay link still serves the file after the upstream's link has expired", async () => {
  const res = await generate();
  const { data } = (await res.json()) as { data: Array<{ url: string }> };
  const jobId = parseFileId(data[0]!.url.split('/files/')[1]!)!.jobId;
  const queue = new Queue('images', {
    connection: redisConnectionOptions(stack.redis.url, 'patient'),
    prefix: bullPrefix(stack.env.REDIS_PREFIX!),
  });
  const job = await queue.getJob(jobId);
  await queue.close();
  const upstreamUrl = (job!.progress as { generations: Record<string, { answer: { data: Array<{ url: string }> } }> }).generations[0]!
    .answer.data[0]!.url;
  const before = await fetch(data[0]!.url);
  const bytes = Buffer.from(await before.arrayBuffer());

  // the upstream's link expiring is the event (SIM_URL_TTL_SECONDS: 2)
  await waitFor(
    async () => {
      const upstream = await fetch(upstreamUrl);
      await upstream.arrayBuffer();
      return upstream.status === 403;
    },
    10_000,
    "the upstream's link to expire",
  );
  const after = await fetch(data[0]!.url);
  expect(after.status).toBe(200);
  expect(Buffer.from(await after.arrayBuffer()).equals(bytes)).toBe(true);
});

test("the account's spend cap (SetLimitExceeded): the request ends at once with the vendor's code, the channel shows why, and an operator takes it back", async () => {
  await stack.fault({ type: 'error', api: 'images', status: 429, code: 'SetLimitExceeded' });
  const res = await generate();
  expect(res.status).toBe(503);
  const body = (await res.json()) as { error: { type: string; code: string; message: string } };
  // the vendor's code is the error's code, as for a moderation refusal
  expect(body.error).toMatchObject({ type: 'server_error', code: 'SetLimitExceeded' });
  expect(body.error.message).toMatch(/quota or spend cap .* \(SetLimitExceeded\)/);
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  expect((await simStats()).requests.images).toBe(1);

  const { channels } = (await (await stack.admin('GET', '/channels')).json()) as {
    channels: Array<{ id: string; upstream: string; state: string; exhaustedReason: string | null }>;
  };
  const channel = channels.find((c) => c.upstream === 'ark')!;
  expect(channel).toMatchObject({ state: 'exhausted', exhaustedReason: expect.stringMatching(/^SetLimitExceeded: /) });
  // the class is on the worker's metrics, for an alert that is not about rate limits
  const metrics = await (await fetch(`${stack.worker.ready.url}/metrics`)).text();
  expect(metrics).toMatch(new RegExp(`^relay_upstream_errors_total\\{channel="${channel.id}",class="quota_exhausted"[^}]*\\} [1-9]`, 'm'));

  // the next request knows it before calling: no upstream call, the same answer at once
  const again = await generate();
  expect(again.status).toBe(503);
  expect(((await again.json()) as { error: { message: string } }).error.message).toMatch(/SetLimitExceeded/);
  expect((await simStats()).requests.images).toBe(1);

  await admin(stack, 'PATCH', `/channels/${channel.id}`, { disabled: false });
  expect((await generate()).status).toBe(200);
});

test('a monthly quota (AccountQuotaExceeded) names its reset to the caller as Retry-After', async () => {
  await stack.fault({ type: 'error', api: 'images', status: 429, code: 'AccountQuotaExceeded' });
  const res = await generate();
  expect(res.status).toBe(503);
  expect(((await res.json()) as { error: { code: string } }).error.code).toBe('AccountQuotaExceeded');
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(60);
  expect((await simStats()).requests.images).toBe(1);
});
