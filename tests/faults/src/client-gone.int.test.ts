import { afterAll, beforeAll, expect, test } from 'vitest';
import { waitFor } from '@relay/testkit';
import { startStack, type Stack } from '@relay/e2e';
import { IMAGE, generate, untilSimInflight } from './helpers.js';

let stack: Stack;
beforeAll(async () => {
  // one upstream call at a time, so a second job has to wait its turn
  stack = await startStack({ worker: { IMAGES_MAX_CONCURRENT: '1' } });
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

test('a client that leaves before its job started cancels it and pays nothing', async () => {
  const busy = await stack.newKey();
  const { key, accountId } = await stack.newKey({ balance: 1_000_000 });
  await fetch(`${stack.sim.url}/_sim/reset`, { method: 'POST' });
  await stack.fault({ type: 'latency', api: 'images', ms: 1_500 });
  const first = generate(stack, busy.key);
  await untilSimInflight(stack, 1);

  const leave = new AbortController();
  const gone = leavingRequest(key, leave);
  await waitFor(async () => (await stack.account(accountId)).reserved > 0, 5_000, 'the reservation');
  leave.abort();
  expect(await gone).toBeInstanceOf(Error);

  expect((await first).status).toBe(200);
  await waitFor(async () => (await stack.account(accountId)).reserved === 0, 5_000, 'the release');
  await new Promise((resolve) => setTimeout(resolve, 500));
  const account = await stack.account(accountId);
  expect(account).toMatchObject({ balance: 1_000_000, spent: 0 });
  expect(account.ledger.map((e) => e.type)).toEqual(['release', 'reserve', 'credit']);
  expect((await stack.simStats()).requests.images).toBe(1);
});

test('a client that leaves after its job started: the job finishes, is charged, and the same Idempotency-Key fetches it', async () => {
  const { key, accountId } = await stack.newKey({ balance: 1_000_000 });
  await fetch(`${stack.sim.url}/_sim/reset`, { method: 'POST' });
  await stack.fault({ type: 'latency', api: 'images', ms: 1_000 });
  const headers = { 'Idempotency-Key': 'left-early' };
  const leave = new AbortController();
  const gone = leavingRequest(key, leave, headers);
  await untilSimInflight(stack, 1);
  leave.abort();
  expect(await gone).toBeInstanceOf(Error);

  const again = await generate(stack, key, IMAGE, headers);
  expect(again.status).toBe(200);
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  expect(await stack.account(accountId)).toMatchObject({ balance: 1_000_000 - 30_000, spent: 30_000, reserved: 0 });
  expect((await stack.simStats()).requests.images).toBe(1);
});
