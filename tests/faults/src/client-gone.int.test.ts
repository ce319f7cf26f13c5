import { afterAll, beforeAll, expect, test } from 'vitest';
import { waitFor } from '@relay/testkit';
import { startStack, type Stack } from '@relay/e2e';
import { IMAGE, generate, settlementsPerJob, untilSimHolding, waitingRequests } from './helpers.js';

let stack: Stack;
beforeAll(async () => {
  // one upstream call at a time, so a second job has to wait its turn
  stack = await startStack({ queues: { images: { maxConcurrent: 1 } } });
}, 60_000);
afterAll(async () => stack?.close());

/** A request whose client gives up when `leave` is aborted. */
function leavingRequest(key: string, leave: AbortController, headers: Record<string, string> = {}) {
  return fetch(`${stack.url}/v1/images/generations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
    body: JSON.stringify(IMAGE),
    signal: leave.signal,
  }).catch((error: Error) => error);
}

/** Occupies the only upstream slot with a call the simulator holds until released. */
async function occupyTheSlot() {
  const busy = await stack.newKey();
  await stack.fault({ type: 'hold', api: 'images' });
  const first = generate(stack, busy.key);
  await untilSimHolding(stack, 1);
  return { first }; // wrapped: an async function returning the promise itself would wait for it
}

test('a client that leaves before its job started cancels it, pays nothing, and its wait ends at once', async () => {
  const { key, accountId } = await stack.newKey({ balance: 1_000_000 });
  const callsBefore = (await stack.simStats()).requests.images;
  const { first } = await occupyTheSlot();

  const leave = new AbortController();
  const gone = leavingRequest(key, leave);
  await waitFor(async () => (await stack.account(accountId)).reserved > 0, 10_000, 'the reservation');
  await waitFor(async () => (await waitingRequests(stack)) === 2, 10_000, 'both requests waiting');
  leave.abort();
  expect(await gone).toBeInstanceOf(Error);
  // the wait ends when the client leaves, not when its budget runs out
  await waitFor(async () => (await waitingRequests(stack)) === 1, 10_000, 'the abandoned wait to end');
  await waitFor(async () => (await stack.account(accountId)).reserved === 0, 10_000, 'the release');

  await stack.release();
  expect((await first).status).toBe(200);
  const account = await stack.account(accountId);
  expect(account).toMatchObject({ balance: 1_000_000, spent: 0 });
  expect(account.ledger.map((e) => e.type)).toEqual(['release', 'reserve', 'credit']);
  // the cancelled job never reached the upstream
  await waitFor(async () => (await stack.simStats()).inflight === 0, 10_000, 'the upstream to be idle');
  expect((await stack.simStats()).requests.images - callsBefore).toBe(1);
});

test('a client that leaves after its job started: the job finishes, is charged, and the same Idempotency-Key fetches it', async () => {
  const { key, accountId } = await stack.newKey({ balance: 1_000_000 });
  const callsBefore = (await stack.simStats()).requests.images;
  await stack.fault({ type: 'hold', api: 'images' });
  const headers = { 'Idempotency-Key': 'left-early' };
  const leave = new AbortController();
  const gone = leavingRequest(key, leave, headers);
  await untilSimHolding(stack, 1);
  leave.abort();
  expect(await gone).toBeInstanceOf(Error);
  await stack.release();

  const again = await generate(stack, key, IMAGE, headers);
  expect(again.status).toBe(200);
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  expect(await stack.account(accountId)).toMatchObject({ balance: 1_000_000 - 30_000, spent: 30_000, reserved: 0 });
  expect((await stack.simStats()).requests.images - callsBefore).toBe(1);
});

test('a replay waiting on a job whose first client left before it started runs it again: 200, charged once', async () => {
  const { key, accountId } = await stack.newKey({ balance: 1_000_000 });
  const { first } = await occupyTheSlot();
  const headers = { 'Idempotency-Key': 'first-one-left' };
  const leave = new AbortController();
  const gone = leavingRequest(key, leave, headers);
  await waitFor(async () => (await stack.account(accountId)).reserved > 0, 10_000, 'the first reservation');
  const replay = generate(stack, key, IMAGE, headers);
  await waitFor(async () => (await waitingRequests(stack)) === 3, 10_000, 'the replay waiting');

  leave.abort();
  expect(await gone).toBeInstanceOf(Error);
  await waitFor(async () => (await stack.account(accountId)).ledger.some((e) => e.type === 'release'), 10_000, 'the cancel');
  await stack.release();
  expect((await first).status).toBe(200);

  const res = await replay;
  expect(res.status).toBe(200);
  const body = (await res.json()) as { data: Array<{ url: string }> };
  expect((await fetch(body.data[0]!.url)).status).toBe(200);
  expect([...(await settlementsPerJob(stack, accountId)).values()]).toEqual([1]);
  expect(await stack.account(accountId)).toMatchObject({ balance: 1_000_000 - 30_000, reserved: 0 });
}, 60_000);

test('many requests waiting at once add no listener per request (no MaxListenersExceededWarning)', async () => {
  const warnings: Error[] = [];
  const collect = (warning: Error) => warnings.push(warning);
  process.on('warning', collect);
  try {
    const { key } = await stack.newKey();
    const { first } = await occupyTheSlot();
    const waiting = Array.from({ length: 30 }, () => generate(stack, key));
    await waitFor(async () => (await waitingRequests(stack)) === 31, 20_000, '31 requests waiting');
    await stack.release();
    expect((await first).status).toBe(200);
    expect((await Promise.all(waiting)).map((r) => r.status)).toEqual(Array(30).fill(200));
  } finally {
    process.off('warning', collect);
  }
  expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
}, 60_000);
