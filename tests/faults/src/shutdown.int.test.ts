import { afterAll, beforeAll, expect, test } from 'vitest';
import { waitFor } from '@relay/testkit';
import { scheduledJobs, startStack, type Stack } from '@relay/e2e';
import { finalAnswer, generate, untilSimHolding } from './helpers.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 60_000);
afterAll(async () => stack?.close());

test('SIGTERM on the api: in-flight waits finish within the grace period, the rest get 202 and their job', async () => {
  const { key } = await stack.newKey();
  // the grace period is the one wall-clock part of this behaviour: long enough that the call let
  // go after the signal finishes well within it, and the call still held after it cannot
  const api = await stack.spawn('api', { SHUTDOWN_GRACE_MS: '3000' });
  await fetch(`${stack.sim.url}/_sim/reset`, { method: 'POST' });
  await stack.fault({ type: 'hold', api: 'images', times: 2 });
  const quick = generate(stack, key, undefined, {}, api.ready.url);
  await untilSimHolding(stack, 1);
  const slow = generate(stack, key, undefined, {}, api.ready.url);
  await untilSimHolding(stack, 2);

  const exited = api.stop('SIGTERM');
  // once the signal is handled, new connections are refused
  await waitFor(
    async () => (await fetch(`${api.ready.url}/healthz`).catch((error: Error) => error)) instanceof Error,
    10_000,
    'refused connections',
  );
  // the first call held is let go: its wait ends with the answer, inside the grace period
  expect(await stack.release(1)).toBe(1);
  expect((await quick).status).toBe(200);
  // the other is still held when the grace period ends: its caller gets 202 and the job
  const late = await slow;
  expect(late.status).toBe(202);
  const job = (await late.json()) as { id: string; status: string };
  expect(job.status).toBe('running');
  expect(await exited).toBe(0);
  expect(await stack.release()).toBe(1);
  expect((await finalAnswer(stack.url, key, job.id)).status).toBe(200);
}, 30_000);

test('SIGTERM on a worker: its active job finishes, queued jobs wait for another worker', async () => {
  const { key, accountId } = await stack.newKey();
  await stack.worker.stop('SIGKILL');
  const worker = await stack.spawn('worker', { IMAGES_CONCURRENCY: '1' });
  await fetch(`${stack.sim.url}/_sim/reset`, { method: 'POST' });
  await stack.fault({ type: 'hold', api: 'images' });
  const answers = [generate(stack, key)];
  await untilSimHolding(stack, 1);
  answers.push(generate(stack, key), generate(stack, key));
  // the signal comes once all three jobs are in the schedule (pending, or handed to the queue)
  await waitFor(async () => (await scheduledJobs(stack, 'images', accountId)) === 3, 10_000, 'the two jobs queued');

  const exited = worker.stop('SIGTERM');
  // the worker has stopped taking jobs once it says so; only then does its active call end
  await waitFor(() => worker.output().includes('shutting down: finishing active jobs'), 10_000, 'the worker shutting down');
  expect(await stack.release()).toBe(1);
  expect(await exited).toBe(0);
  expect((await answers[0]!).status).toBe(200);
  expect((await stack.simStats()).requests.images).toBe(1);
  await stack.spawn('worker');
  expect((await Promise.all(answers.slice(1))).map((r) => r.status)).toEqual([200, 200]);
}, 30_000);
