import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { waitFor } from '@relay/testkit';
import { QUEUE_NAMES } from '@relay/core';
import { postJson, startStack, type Stack } from './stack.js';

let stack: Stack;
let consoleDir: string;
beforeAll(async () => {
  // a stand-in build: these tests are about serving it (the browser test builds the real one)
  consoleDir = mkdtempSync(join(tmpdir(), 'relay-console-'));
  mkdirSync(join(consoleDir, 'assets'));
  writeFileSync(
    join(consoleDir, 'index.html'),
    '<!doctype html><title>console</title><script type="module" src="/console/assets/app-ABC.js"></script>',
  );
  writeFileSync(join(consoleDir, 'assets/app-ABC.js'), 'console.log("hi")');
  // one upstream image call at a time: a held call keeps the next job waiting in the schedule
  stack = await startStack({
    consoleDir,
    tuning: { api: { statsFlushMs: 100 } },
    queues: { images: { maxConcurrent: 1, dispatchWindow: 1 } },
  });
}, 60_000);
afterAll(async () => {
  await stack?.close();
  rmSync(consoleDir, { recursive: true, force: true });
});

const get = async <T>(path: string) => {
  const res = await stack.admin('GET', path);
  return { status: res.status, body: (await res.json()) as T };
};
type Listed = { accounts: Array<{ id: string; name: string; balance: number; spentThisMonth: number }>; nextCursor: string | null };
const names = (listed: Listed) => listed.accounts.map((a) => a.name);

test('/console serves the app: config without a token, index for every page, immutable assets', async () => {
  const config = await fetch(`${stack.url}/console/config`);
  expect(await config.json()).toEqual({ adminEnabled: true, version: '0.1.0' });
  for (const path of ['/console', '/console/', '/console/accounts/acct_0123456789abcdef', '/console/queues']) {
    const res = await fetch(`${stack.url}${path}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await res.text()).toContain('/console/assets/app-ABC.js');
  }
  const asset = await fetch(`${stack.url}/console/assets/app-ABC.js`);
  expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  expect(asset.headers.get('content-type')).toMatch(/javascript/);
  expect((await fetch(`${stack.url}/console/assets/app-OLD.js`)).status).toBe(404);
});

test('accounts: listed newest first in pages, searched by words of the name or the id, never by scanning', async () => {
  const made: string[] = [];
  for (const name of ['Zeta Widgets', 'zeta labs', 'Omega Zeta-Rays', 'Unrelated']) {
    made.push(((await (await stack.admin('POST', '/accounts', { name })).json()) as { id: string }).id);
  }
  await stack.admin('POST', `/accounts/${made[0]}/credits`, { amount: 3_000_000 });
  const first = await get<Listed>('/accounts?limit=2');
  expect(names(first.body)).toEqual(['Unrelated', 'Omega Zeta-Rays']);
  const second = await get<Listed>(`/accounts?limit=2&cursor=${first.body.nextCursor}`);
  expect(names(second.body)).toEqual(['zeta labs', 'Zeta Widgets']);
  expect(second.body.accounts[1]).toMatchObject({ id: made[0], balance: 3_000_000, spentThisMonth: 0 });

  expect(names((await get<Listed>('/accounts?q=ZET')).body).sort()).toEqual(['Omega Zeta-Rays', 'Zeta Widgets', 'zeta labs']);
  expect(names((await get<Listed>('/accounts?q=rays%20omeg')).body)).toEqual(['Omega Zeta-Rays']);
  expect(names((await get<Listed>(`/accounts?q=${made[3]!.slice(0, 10)}`)).body)).toContain('Unrelated');
  for (const q of ['nothing-like-it', 'constructor', '__proto__', '%5B', '*'])
    expect((await get<Listed>(`/accounts?q=${q}`)).body.accounts).toEqual([]);
  expect((await get('/accounts?limit=0')).status).toBe(400);
  expect((await get('/accounts?cursor=abc')).status).toBe(400);
  expect((await get('/accounts?q=a&extra=1')).status).toBe(400);
});

test('accounts made before the index existed are added to it once, at start', async () => {
  const redis = new Redis(stack.redis.url);
  const prefix = stack.env.REDIS_PREFIX!;
  const id = 'acct_00000000000000ff';
  await redis.hset(`${prefix}:account:${id}`, { id, name: 'Legacy Co', createdAt: 1, balance: 0, reserved: 0, spent: 0 });
  await redis.del(`${prefix}:accounts:backfilled`);
  const api = await stack.spawn('api');
  const res = await fetch(`${api.ready.url}/admin/accounts?q=legacy`, { headers: { authorization: `Bearer ${stack.adminToken}` } });
  expect(((await res.json()) as Listed).accounts.map((a) => a.id)).toEqual([id]);
  expect(await redis.exists(`${prefix}:accounts:backfilled`)).toBe(1);
  redis.disconnect();
});

test('usage: daily aggregates per account and relay, the ledger by key, keys last used, traffic per minute', async () => {
  const { key, keyId, accountId } = await stack.newKey();
  const other = (await (await stack.admin('POST', `/accounts/${accountId}/keys`, { name: 'other' })).json()) as { id: string; key: string };
  for (const secret of [key, other.key]) {
    expect(
      (await postJson(`${stack.url}/v1/images/generations`, { model: 'vendor-gen-4-0-250828', prompt: 'a kite' }, secret)).status,
    ).toBe(200);
  }
  expect((await postJson(`${stack.url}/v1/images/generations`, { model: 'nope', prompt: 'x' }, key)).status).toBe(400);

  const daily = await get<{ days: Array<{ model: string; charged: number; units: number; jobs: number }> }>(
    `/accounts/${accountId}/usage/daily?days=1`,
  );
  expect(daily.body.days).toEqual([expect.objectContaining({ model: 'vendor-gen-4-0-250828', charged: 60_000, units: 2, jobs: 2 })]);
  const relay = await get<{ days: Array<{ model: string; charged: number }> }>('/usage/daily?days=7');
  expect(relay.body.days.find((d) => d.model === 'vendor-gen-4-0-250828')!.charged).toBeGreaterThanOrEqual(60_000);
  expect((await get('/usage/daily?days=91')).status).toBe(400);
  expect((await get('/accounts/acct_0000000000000000/usage/daily')).status).toBe(404);
  const listed = await get<Listed>(`/accounts?q=${accountId}`);
  expect(listed.body.accounts[0]).toMatchObject({ id: accountId, spentThisMonth: 60_000 });

  const byKey = await get<{ entries: Array<{ keyId: string; type: string }> }>(`/accounts/${accountId}/usage?key=${other.id}`);
  expect(byKey.body.entries.map((e) => [e.type, e.keyId])).toEqual([
    ['settle', other.id],
    ['reserve', other.id],
  ]);

  const keys = await get<{ keys: Array<{ id: string; createdAt: number; lastUsedAt: number | null }> }>(`/accounts/${accountId}/keys`);
  // each key's use lies between its creation and the settlement of the request it made (the
  // relay's own timestamps: the key record, and the ledger on the same host's clock)
  const { ledger } = await stack.account(accountId);
  for (const k of keys.body.keys) {
    const settled = ledger.find((e) => e.type === 'settle' && e.keyId === k.id)!;
    expect(k.lastUsedAt).toBeGreaterThanOrEqual(k.createdAt);
    expect(k.lastUsedAt).toBeLessThanOrEqual(Date.parse(settled.at));
  }
  expect(keys.body.keys.map((k) => k.id)).toContain(keyId);

  // every api process adds up its minute in memory and flushes it (statsFlushMs): wait for the flush
  type Traffic = {
    minutes: Array<{ requests: number; clientErrors: number; serverErrors: number; avgMs: number; p95Ms: number }>;
    byGroup: Array<{ group: string; requests: number; errors: number }>;
  };
  const traffic = await waitFor(async () => {
    const t = (await get<Traffic>('/stats/traffic?hours=1')).body;
    // no images group at all until the first flush
    return (t.byGroup.find((g) => g.group === 'images')?.requests ?? 0) >= 3 ? t : undefined;
  });
  expect(traffic.byGroup.find((g) => g.group === 'images')).toEqual({ group: 'images', requests: 3, errors: 1 });
  expect(traffic.minutes.reduce((n, m) => n + m.clientErrors, 0)).toBe(1);
  expect(traffic.minutes.every((m) => m.avgMs >= 0 && m.p95Ms >= 100)).toBe(true);
  expect((await get('/stats/traffic?hours=25')).status).toBe(400);
});

test('the schedule: pending jobs per lane and account, running per account', async () => {
  const { key, accountId } = await stack.newKey();
  await stack.fault({ type: 'hold', api: 'images' });
  const image = { model: 'vendor-gen-4-0-250828', prompt: 'a queue' };
  expect((await postJson(`${stack.url}/v1/images/generations`, image, key, { Prefer: 'respond-async' })).status).toBe(202);
  await waitFor(async () => (await stack.simStats()).holding === 1, 20_000, 'the first call held');
  expect((await postJson(`${stack.url}/v1/images/generations`, image, key, { Prefer: 'respond-async' })).status).toBe(202);
  type Schedule = {
    queues: Array<{
      name: string;
      lanes: Array<{ lane: string; jobs: number; cost: number; accounts: Array<{ accountId: string; jobs: number }> }>;
      running: Array<{ accountId: string; jobs: number }>;
      dispatching: number;
    }>;
  };
  const images = (await get<Schedule>('/schedule')).body.queues.find((q) => q.name === 'images')!;
  expect(images.lanes.map((l) => l.lane)).toEqual(['interactive', 'async', 'batch']);
  expect(images.lanes[1]).toEqual({ lane: 'async', jobs: 1, cost: 1, accounts: [{ accountId, jobs: 1, cost: 1 }] });
  expect(images.running).toEqual([{ accountId, jobs: 1, cost: 1 }]);
  expect(await stack.release()).toBe(1);
  await waitFor(
    async () => (await get<Schedule>('/schedule')).body.queues.find((q) => q.name === 'images')!.running.length === 0 || undefined,
    20_000,
    'both jobs done',
  );
});

test('queue counts and the catalog', async () => {
  type Queues = {
    queues: Array<{ name: string; queue: string; counts: Record<string, number>; recentFailures: unknown[] }>;
    dashboard: string;
  };
  const queues = (await get<Queues>('/stats/queues')).body;
  expect(queues.dashboard).toBe('/admin/queues');
  expect(queues.queues.map((q) => q.name).sort()).toEqual([...QUEUE_NAMES].sort());
  expect(Object.keys(queues.queues[0]!.counts).sort()).toEqual(['active', 'completed', 'delayed', 'failed', 'prioritized', 'waiting']);
  expect(queues.queues.find((q) => q.name === 'images')!.counts.completed).toBeGreaterThanOrEqual(1);
  const catalog = (
    await get<{ imageModels: Array<{ id: string; price: number }>; speechModels: Array<{ id: string; voices: string[] }> }>('/catalog')
  ).body;
  expect(catalog.imageModels.find((m) => m.id === 'vendor-gen-4-0-250828')!.price).toBe(30_000);
  expect(catalog.speechModels[0]!.voices).toContain('Kore');
});

test('the console routes need the admin token like the rest of /admin; a Bearer caller is not asked for a Basic password', async () => {
  for (const path of ['/admin/accounts', '/admin/usage/daily', '/admin/stats/traffic', '/admin/stats/queues', '/admin/catalog']) {
    const res = await fetch(`${stack.url}${path}`, { headers: { authorization: 'Bearer wrong' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
  }
});
