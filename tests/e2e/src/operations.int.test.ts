import { afterAll, beforeAll, expect, test } from 'vitest';
import { QUEUE_NAMES } from '@relay/core';
import { postJson, startStack, type Stack } from './stack.js';

let stack: Stack;
let key: string;
beforeAll(async () => {
  stack = await startStack();
  ({ key } = await stack.newKey());
  await stack.fault({ type: 'error', api: 'images', status: 500 });
  await postJson(`${stack.url}/v1/images/generations`, { model: 'vendor-gen-4-0-250828', prompt: 'metrics' }, key);
}, 60_000);
afterAll(async () => stack?.close());

const metric = (text: string, name: string, labels: Record<string, string>) =>
  text.split('\n').find((line) => line.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)));

test('the api exposes HTTP traffic by route pattern and queue depth', async () => {
  const text = await (await fetch(`${stack.url}/metrics`)).text();
  expect(metric(text, 'relay_http_requests_total', { route: '/v1/images/generations', method: 'POST', status: '200' })).toMatch(/ 1$/);
  expect(metric(text, 'relay_http_request_duration_seconds_count', { route: '/v1/images/generations' })).toBeDefined();
  expect(metric(text, 'relay_http_requests_total', { route: '/admin/accounts/:id/keys', status: '201' })).toBeDefined();
  expect(metric(text, 'relay_queue_jobs', { queue: 'images', state: 'completed' })).toMatch(/ 1$/);
  expect(text).toContain('process_resident_memory_bytes');
});

test('the worker exposes jobs, upstream calls, retries, bytes and money on its own port', async () => {
  const base = stack.worker.ready.url!;
  const text = await (await fetch(`${base}/metrics`)).text();
  expect(metric(text, 'relay_upstream_calls_total', { upstream: 'ark', status: '500' })).toMatch(/ 1$/);
  expect(metric(text, 'relay_upstream_calls_total', { upstream: 'ark', status: '200' })).toMatch(/ 1$/);
  expect(metric(text, 'relay_job_retries_total', { queue: 'images' })).toMatch(/ 1$/);
  expect(
    metric(text, 'relay_job_duration_seconds_count', { queue: 'images', model: 'vendor-gen-4-0-250828', outcome: 'completed' }),
  ).toMatch(/ 1$/);
  expect(metric(text, 'relay_charged_micro_units_total', { model: 'vendor-gen-4-0-250828' })).toMatch(/ 30000$/);
  expect(Number(metric(text, 'relay_bytes_stored_total', { queue: 'images' })?.split(' ').pop())).toBeGreaterThan(10_000);
  expect((await fetch(`${base}/healthz`)).status).toBe(200);
  expect(await (await fetch(`${base}/readyz`)).json()).toEqual({ redis: true, store: true });
});

test('the queue dashboard sits behind the admin token, and a browser is asked for it', async () => {
  const anonymous = await fetch(`${stack.url}/admin/queues`);
  expect(anonymous.status).toBe(401);
  expect(anonymous.headers.get('www-authenticate')).toMatch(/^Basic/);
  const basic = Buffer.from(`admin:${stack.adminToken}`).toString('base64');
  const page = await fetch(`${stack.url}/admin/queues`, { headers: { authorization: `Basic ${basic}` } });
  expect(page.status).toBe(200);
  expect(await page.text()).toContain('<html');
  const api = await fetch(`${stack.url}/admin/queues/api/queues`, { headers: { authorization: `Bearer ${stack.adminToken}` } });
  const queues = (await api.json()) as { queues: Array<{ name: string }> };
  expect(queues.queues.map((q) => q.name).sort()).toEqual([...QUEUE_NAMES].sort());
});

test('/readyz reports each dependency', async () => {
  expect(await (await fetch(`${stack.url}/readyz`)).json()).toEqual({ redis: true, store: true });
});
