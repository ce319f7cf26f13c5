import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { waitFor } from '@relay/testkit';
import { scheduledJobs, startStack, type Stack } from '@relay/e2e';
import { finalAnswer, generate, IMAGE, untilSimHolding } from './helpers.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 60_000);
afterAll(async () => stack?.close());

/** An api of its own with this grace period, a call of `key` held at the simulator through it, and the signal sent. */
async function heldThenSignalled(key: string, graceMs: number) {
  const api = await stack.spawn('api', { SHUTDOWN_GRACE_MS: String(graceMs) });
  await fetch(`${stack.sim.url}/_sim/reset`, { method: 'POST' });
  await stack.fault({ type: 'hold', api: 'images', times: 1 });
  const answer = generate(stack, key, undefined, {}, api.ready.url);
  await untilSimHolding(stack, 1);
  const exited = api.stop('SIGTERM');
  return { api, answer, exited };
}

test('SIGTERM on the api: new connections are refused, and a wait that ends within the grace period gets its answer', async () => {
  const { key } = await stack.newKey();
  // the longest grace period (10 min), 20 times this test's timeout: the wait ends because the call is let go, never by the clock
  const { api, answer, exited } = await heldThenSignalled(key, 600_000);
  await waitFor(
    async () => (await fetch(`${api.ready.url}/healthz`).catch((error: Error) => error)) instanceof Error,
    10_000,
    'refused connections',
  );
  expect(await stack.release(1)).toBe(1);
  expect((await answer).status).toBe(200);
  // its last wait over, the api exits without waiting out the grace period
  expect(await exited).toBe(0);
}, 30_000);

/** One request through `agent`, with the socket that carried it. */
function through(agent: Agent, url: string, method: string, key?: string, body?: unknown) {
  return new Promise<{ status: number; headers: IncomingHttpHeaders; socket: Socket }>((resolve, reject) => {
    const headers = { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) };
    const req = request(url, { agent, method, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, socket: req.socket! }));
    });
    req.on('error', reject);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}

test('SIGTERM on the api: a connection kept alive across it is closed after its next answer, so the api drains', async () => {
  const { key } = await stack.newKey();
  const api = await stack.spawn('api', { SHUTDOWN_GRACE_MS: '600000' });
  await fetch(`${stack.sim.url}/_sim/reset`, { method: 'POST' });
  await stack.fault({ type: 'hold', api: 'images', times: 1 });
  // one socket, kept alive: busy with a held request when the signal comes, so the api cannot close it then
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const held = through(agent, `${api.ready.url}/v1/images/generations`, 'POST', key, IMAGE);
    await untilSimHolding(stack, 1);
    const exited = api.stop('SIGTERM');
    await waitFor(
      async () =>
        (await fetch(`${api.ready.url}/healthz`, { headers: { connection: 'close' } }).catch((error: Error) => error)) instanceof Error,
      10_000,
      'refused connections',
    );
    expect(await stack.release(1)).toBe(1);
    const first = await held;
    expect(first.status).toBe(200);
    // the same socket again: it is answered, and told to go
    const next = await through(agent, `${api.ready.url}/healthz`, 'GET');
    expect(next.socket).toBe(first.socket);
    expect(next.status).toBe(200);
    expect(next.headers.connection).toBe('close');
    expect(await exited).toBe(0);
  } finally {
    agent.destroy();
  }
}, 30_000);

test('SIGTERM on the api: a wait still going when the grace period ends gets 202 and its job, which finishes', async () => {
  const { key } = await stack.newKey();
  // the call is held until its caller has the 202: the grace period can only end first
  const { answer, exited } = await heldThenSignalled(key, 200);
  const late = await answer;
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
  const worker = await stack.spawn('worker', { WORKER_CONCURRENCY: '1' });
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
