import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest';
import { admin, startSimProcess, type SimProcess } from './channel-sims.js';
import { postJson, startStack, type Stack } from './stack.js';

/**
 * Several upstream accounts behind one relay: two simulators, each its own process, as channels
 * added at run time (the configured upstream is disabled here, so only they serve).
 */
let stack: Stack;
let key: string;
let accountId: string;
let a: SimProcess;
let b: SimProcess;
const COOLDOWN_MS = 1_500;
beforeAll(async () => {
  [a, b] = await Promise.all([startSimProcess({ SIM_LATENCY_MS: '20' }), startSimProcess({ SIM_LATENCY_MS: '20' })]);
  stack = await startStack({
    // the simulators' result links are on loopback: the URL policy must let the worker fetch them
    allow: [new URL(a.url).host, new URL(b.url).host],
    worker: { WORKER_CONCURRENCY: '16' },
    tuning: { worker: { channelRefreshMs: 200, breaker: { minCalls: 4, windowMs: 10_000, cooldownMs: COOLDOWN_MS } } },
  });
  ({ key, accountId } = await stack.newKey());
  await admin(stack, 'PATCH', '/channels/ark', { disabled: true });
  await admin(stack, 'PATCH', '/channels/gemini', { disabled: true });
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await Promise.all([a?.stop(), b?.stop()]);
});

const added: string[] = [];
async function channel(id: string, sim: SimProcess, upstream: 'ark' | 'gemini', extra: Record<string, unknown> = {}) {
  const baseUrl = upstream === 'ark' ? `${sim.url}/api/v3` : sim.url;
  await admin(stack, 'POST', '/channels', { id, upstream, baseUrl, apiKey: 'sim-key', ...extra });
  added.push(id);
}
beforeEach(async () => {
  for (const id of added.splice(0)) await admin(stack, 'DELETE', `/channels/${id}`);
  await Promise.all([a.clear(), b.clear()]);
});

const IMAGE = { model: 'vendor-gen-4-0-250828', prompt: 'a lighthouse' };
const image = () => postJson(`${stack.url}/v1/images/generations`, IMAGE, key);
const speech = () =>
  postJson(
    `${stack.url}/v1beta/models/vendor-2.5-flash-preview-tts:generateContent`,
    {
      contents: [{ parts: [{ text: 'Hello there.' }] }],
      generationConfig: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } } },
    },
    key,
  );

/** `n` requests, `c` at a time; their statuses. */
async function load(n: number, c: number, send: () => Promise<Response>) {
  const statuses: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: c }, async () => {
      while (next < n) {
        next += 1;
        const res = await send();
        await res.arrayBuffer();
        statuses.push(res.status);
      }
    }),
  );
  return statuses;
}
const all200 = (statuses: number[]) => expect(statuses.filter((s) => s !== 200)).toEqual([]);

test('two healthy channels split the traffic by weight (3:1, within 15 %)', async () => {
  await channel('a', a, 'ark', { weight: 3 });
  await channel('b', b, 'ark', { weight: 1 });
  all200(await load(200, 8, image));
  const [sa, sb] = [await a.stats(), await b.stats()];
  expect(sa.requests.images + sb.requests.images).toBe(200);
  const share = sa.requests.images / 200;
  expect(share).toBeGreaterThan(0.75 * 0.85);
  expect(share).toBeLessThan(0.75 * 1.15);
  // the ledger says which channel served each job
  const { ledger } = await stack.account(accountId);
  const settled = ledger.filter((e) => e.type === 'settle').slice(0, 200);
  expect(new Set(settled.map((e) => e.channel))).toEqual(new Set(['a', 'b']));
});

test('a channel answering 500 for good: every client request succeeds, its breaker opens, and it is taken back after it recovers', async () => {
  await channel('a', a, 'ark', { weight: 10 });
  await channel('b', b, 'ark');
  await a.fault({ type: 'error', api: 'images', status: 500, times: 100_000 });
  all200(await load(40, 4, image));
  const failing = await a.stats();
  // the breaker opened after a handful of failures (4 calls at >= 50 %, and at most 3 more already
  // under way with 4 at once); then a was left alone but for one probe per cooldown, however long
  // the load took by the upstream's own log
  expect(failing.statuses['500']).toBeGreaterThanOrEqual(4);
  const failed = await a.calls();
  const span = failed.at(-1)!.startedAt - failed[0]!.startedAt;
  expect(failing.statuses['500']).toBeLessThanOrEqual(4 + 3 + Math.floor(span / COOLDOWN_MS) + 1);
  const view = (await (await stack.admin('GET', '/channels/a')).json()) as {
    state: string;
    recentFailureShare: number;
    openUntil: number | null;
  };
  expect(view.state).toMatch(/open/);
  expect(view.recentFailureShare).toBe(1);

  await a.clear(); // recovered
  while ((await a.stats()).statuses['200'] === undefined) all200(await load(4, 2, image));
  // taken back by a probe, never before the cooldown the breaker had set was over
  const [probe] = await a.calls();
  expect(probe!.status).toBe(200);
  expect(probe!.startedAt).toBeGreaterThanOrEqual(view.openUntil!);
  const back = (await (await stack.admin('GET', '/channels/a')).json()) as { state: string };
  expect(back.state).toBe('closed');
});

test('a 429 storm on one channel: no 429 reaches a client, one extra call at most, and the channel rests for the delay it asked', async () => {
  await channel('ga', a, 'gemini', { weight: 100 });
  await channel('gb', b, 'gemini');
  await a.fault({ type: 'error', api: 'speech', status: 429, retryDelay: '30s', times: 100_000 });
  all200(await load(30, 3, speech));
  const [sa, sb] = [await a.stats(), await b.stats()];
  expect(Object.keys(sa.statuses)).toEqual(['429']);
  expect(sb.statuses).toEqual({ 200: 30 });
  const view = (await (await stack.admin('GET', '/channels/ga')).json()) as { state: string; openUntil: number };
  expect(view.state).toBe('open');
  // resting 30 s from its first 429 (by the upstream's log), not the breaker's 1.5 s cooldown
  const calls = await a.calls();
  expect(view.openUntil - calls[0]!.endedAt).toBeGreaterThanOrEqual(30_000);
  // a answered 429 to the calls that reached it before its first 429 came back (three run at
  // once), then was left alone for its rest: no request cost more than one extra call
  expect(calls.filter((c) => c.startedAt < view.openUntil).length).toBeLessThanOrEqual(3);
});

test('priority tiers: the backup takes traffic only while the primary is full or open', async () => {
  await channel('primary', a, 'ark', { priority: 0, maxConcurrent: 2 });
  await channel('backup', b, 'ark', { priority: 1 });
  all200(await load(10, 1, image)); // one at a time: the primary has room for every one
  expect((await b.stats()).requests.images).toBe(0);
  all200(await load(30, 6, image)); // six at a time: two fit the primary, the rest overflow
  expect((await a.stats()).maxInflight).toBeLessThanOrEqual(2);
  expect((await b.stats()).requests.images).toBeGreaterThan(0);
  await a.fault({ type: 'error', api: 'images', status: 500, times: 100_000 });
  await b.clear();
  all200(await load(20, 1, image)); // the primary fails: its breaker opens, the backup serves
  expect((await b.stats()).requests.images).toBeGreaterThanOrEqual(16);
});

test('two channels of one vendor account (a capacity group) never exceed the account limit together', async () => {
  // both channels lead to the same simulator: its count of calls at once is the group's
  await channel('acct-eu', a, 'ark', { capacityGroup: 'acct', maxConcurrent: 2 });
  await channel('acct-us', a, 'ark', { capacityGroup: 'acct', maxConcurrent: 2 });
  await a.fault({ type: 'latency', api: 'images', ms: 150, times: 30 });
  all200(await load(30, 10, image));
  const stats = await a.stats();
  expect(stats.requests.images).toBe(30);
  expect(stats.maxInflight).toBe(2);
});

test('channels added and removed at run time, under load: no request fails', async () => {
  await channel('first', a, 'ark');
  const traffic = load(150, 4, image);
  await channel('second', b, 'ark', { weight: 5 });
  await admin(stack, 'PATCH', '/channels/first', { disabled: true });
  await admin(stack, 'DELETE', '/channels/first');
  added.splice(added.indexOf('first'), 1);
  all200(await traffic);
  expect((await b.stats()).requests.images).toBeGreaterThan(0);
});

test('the admin API never shows a key, refuses what it cannot honour, and a refused key disables its channel', async () => {
  await channel('denied', a, 'ark');
  const listed = await (await stack.admin('GET', '/channels')).text();
  expect(listed).not.toContain('sim-key');
  expect(JSON.parse(listed).channels.find((c: { id: string }) => c.id === 'denied')).toMatchObject({
    hasKey: true,
    source: 'admin',
    state: 'closed',
  });
  expect((await stack.admin('POST', '/channels', { id: 'denied', upstream: 'ark', baseUrl: a.url, apiKey: 'k' })).status).toBe(409);
  expect(
    (
      await stack.admin('POST', '/channels', {
        id: 'x',
        upstream: 'ark',
        baseUrl: a.url,
        apiKey: 'k',
        models: { 'vendor-2.5-flash-preview-tts': 'm' },
      })
    ).status,
  ).toBe(400);
  expect((await stack.admin('POST', '/channels', { id: 'Bad Id', upstream: 'ark', baseUrl: a.url, apiKey: 'k' })).status).toBe(400);
  expect((await stack.admin('DELETE', '/channels/ark')).status).toBe(409);
  expect((await stack.admin('PATCH', '/channels/ark', { apiKey: 'k' })).status).toBe(400);

  await a.fault({ type: 'error', api: 'images', status: 401, code: 'AuthenticationError' });
  const res = await image();
  expect(res.status).toBe(502);
  expect(((await res.json()) as { error: { code: string } }).error.code).toBe('upstream_misconfigured');
  const view = (await (await stack.admin('GET', '/channels/denied')).json()) as {
    state: string;
    disabled: boolean;
    disabledReason: string;
  };
  expect(view).toMatchObject({ state: 'disabled', disabled: true });
  expect(view.disabledReason).toMatch(/^auth: HTTP 401/);
  await admin(stack, 'PATCH', '/channels/denied', { disabled: false });
  all200(await load(2, 1, image));
});
