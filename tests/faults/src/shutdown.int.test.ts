import { afterAll, beforeAll, expect, test } from 'vitest';
import { waitFor } from '@relay/testkit';
import { startStack, type Stack } from '@relay/e2e';
import { finalAnswer, generate, untilSimInflight } from './helpers.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 60_000);
afterAll(async () => stack?.close());

test('SIGTERM on the api: in-flight waits finish within the grace period, the rest get 202 and their job', async () => {
  const { key } = await stack.newKey();
  const api = await stack.spawn('api', { SHUTDOWN_GRACE_MS: '1500' });
  await fetch(`${stack.sim.url}/_sim/reset`, { method: 'POST' });
  await stack.fault([
    { type: 'latency', api: 'images', ms: 5_000 },
    { type: 'latency', api: 'images', ms: 500 },
  ]);
  const slow = generate(stack, key, undefined, {}, api.ready.url);
  await untilSimInflight(stack, 1);
  const quick = generate(stack, key, undefined, {}, api.ready.url);
  await untilSimInflight(stack, 2);

  const exited = api.stop('SIGTERM');
  // once the signal is handled, new connections are refused
  await waitFor(
    async () => (await fetch(`${api.ready.url}/healthz`).catch((error: Error) => error)) instanceof Error,
    10_000,
    'refused connections',
  );
  expect((await quick).status).toBe(200);
  const late = await slow;
  expect(late.status).toBe(202);
  const job = (await late.json()) as { id: string; status: string };
  expect(job.status).toBe('running');
  expect(await exited).toBe(0);
  expect((await finalAnswer(stack.url, key, job.id)).status).toBe(200);
}, 30_000);

test('SIGTERM on a worker: its active job finishes, queued jobs wait for another worker', async () => {
  const { key } = await stack.newKey();
  await stack.worker.stop('SIGKILL');
  const worker = await stack.spawn('worker', { IMAGES_CONCURRENCY: '1' });
  await fetch(`${stack.sim.url}/_sim/reset`, { method: 'POST' });
  await stack.fault({ type: 'latency', api: 'images', ms: 1_000 });
  const answers = [generate(stack, key)];
  await untilSimInflight(stack, 1);
  answers.push(generate(stack, key), generate(stack, key));
  await new Promise((resolve) => setTimeout(resolve, 200));

  expect(await worker.stop('SIGTERM')).toBe(0);
  expect((await answers[0]!).status).toBe(200);
  expect((await stack.simStats()).requests.images).toBe(1);
  await stack.spawn('worker');
  expect((await Promise.all(answers.slice(1))).map((r) => r.status)).toEqual([200, 200]);
}, 30_000);
