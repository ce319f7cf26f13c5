import { afterAll, beforeAll, expect, test } from 'vitest';
import { waitFor } from '@relay/testkit';
import { postJson, startStack, type Stack } from './stack.js';

let stack: Stack;
beforeAll(async () => {
  // one call at a time, 200 ms each: about five jobs a second
  stack = await startStack({ simulator: { SIM_LATENCY_MS: '200' }, queues: { images: { maxConcurrent: 1 } } });
}, 60_000);
afterAll(async () => stack?.close());

/** Requests of the api waiting for their jobs (its own metric): admitted and in the schedule. */
async function waitingRequests() {
  const text = await (await fetch(`${stack.url}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('relay_waiting_requests{'))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

const send = (key: string, prefer?: string) =>
  postJson(
    `${stack.url}/v1/images/generations`,
    { model: 'vendor-gen-4-0-250828', prompt: 'a tide' },
    key,
    prefer ? { Prefer: prefer } : {},
  );

test("a synchronous caller is judged by its own place in the schedule, not by other accounts' backlogs", async () => {
  const [bulk, waiting, newcomer] = await Promise.all([stack.newKey(), stack.newKey(), stack.newKey()]);
  // a pace to judge by, then a backlog of async work from one account
  for (let i = 0; i < 6; i++) expect((await send(bulk.key)).status).toBe(200);
  const queued = await Promise.all(Array.from({ length: 20 }, () => send(bulk.key, 'respond-async')));
  expect(queued.every((r) => r.status === 202)).toBe(true);

  // an interactive caller goes before the async backlog: taken, and served within its second
  const interactive = await send(newcomer.key, 'wait=5');
  expect(interactive.status).toBe(200);

  // one account's own interactive backlog: its next caller would wait behind it, so it is refused
  const lined = Array.from({ length: 15 }, () => send(waiting.key, 'wait=60'));
  await waitFor(async () => (await waitingRequests()) >= 15, 20_000, 'the 15 requests admitted');
  const refused = await send(waiting.key, 'wait=1');
  expect(refused.status).toBe(503);
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/respond-async/);
  // another account gets its fair turn beside that backlog: not refused
  expect((await send(newcomer.key, 'wait=30')).status).toBe(200);
  // asynchronous callers are always taken
  expect((await send(waiting.key, 'respond-async')).status).toBe(202);
  expect((await Promise.all(lined)).map((r) => r.status)).toEqual(Array(15).fill(200));
}, 60_000);
