import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { waitFor } from '@relay/testkit';
import { startStack, type Stack } from '@relay/e2e';
import { renderImage } from '@relay/simulator';
import { waitingRequests } from './helpers.js';

/**
 * The api's way to the store goes through a TCP relay this test can hold: while held, what the
 * api sends waits (an upload hangs) until the hold is lifted, so the test knows the request is in
 * the middle of its admission, its money reserved and its input image on the way to the store.
 */
function holdableTcp() {
  let target: URL | undefined;
  let held = false;
  const parked: Array<() => void> = [];
  const onParked: Array<() => void> = [];
  const server: Server = createServer((client: Socket) => {
    // nothing reaches the store before the stack is up and the test has said where it is
    if (!target) return void client.destroy();
    const upstream = connect(Number(target.port), target.hostname);
    client.on('data', (chunk: Buffer) => {
      if (!held) return void upstream.write(chunk);
      parked.push(() => upstream.write(chunk));
      onParked.splice(0).forEach((tell) => tell());
    });
    client.on('end', () => (held ? parked.push(() => upstream.end()) : upstream.end()));
    upstream.pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  return {
    listen: () =>
      new Promise<string>((resolve) =>
        server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}`)),
      ),
    to: (url: string) => void (target = new URL(url)),
    hold: () => void (held = true),
    /** Resolves once something sent while held is waiting. */
    somethingWaits: () => new Promise<void>((resolve) => (parked.length ? resolve() : onParked.push(resolve))),
    lift() {
      held = false;
      for (const send of parked.splice(0)) send();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const store = holdableTcp();
let stack: Stack;
beforeAll(async () => {
  const through = await store.listen();
  // the store is not asked before the first request: the target is set once the stack knows it
  stack = await startStack({ api: { S3_ENDPOINT: through } });
  store.to(stack.s3.env.S3_ENDPOINT);
}, 60_000);
afterAll(async () => {
  await stack?.close();
  await store.close();
});

test('a client that leaves while its job is being admitted: the job, once queued, is cancelled and nothing is charged', async () => {
  const { key, accountId } = await stack.newKey({ balance: 1_000_000 });
  const callsBefore = (await stack.simStats()).requests.images;
  const input = renderImage({ width: 64, height: 48, format: 'png', watermark: false, hue: 3 });
  const leave = new AbortController();
  store.hold();
  const gone = fetch(`${stack.url}/v1/images/generations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({
      model: 'vendor-edit-3-0-i2i-250628',
      prompt: 'warmer light',
      image: `data:image/png;base64,${input.toString('base64')}`,
    }),
    signal: leave.signal,
  }).catch((error: Error) => error);
  // money held, the input image's upload waiting at the store: the admission is half done
  await waitFor(async () => (await stack.account(accountId)).reserved > 0, 10_000, 'the reservation');
  await store.somethingWaits();
  expect(await waitingRequests(stack)).toBe(1);
  leave.abort();
  expect(await gone).toBeInstanceOf(Error);
  // the api has seen its client go (its wait ended) before the admission can go on
  await waitFor(async () => (await waitingRequests(stack)) === 0, 10_000, 'the api to see the client leave');
  store.lift();

  await waitFor(async () => (await stack.account(accountId)).reserved === 0, 10_000, 'the cancellation to give the money back');
  const account = await stack.account(accountId);
  expect(account).toMatchObject({ balance: 1_000_000, spent: 0 });
  expect(account.ledger.map((e) => e.type)).toEqual(['release', 'reserve', 'credit']);
  // the job was dropped before a worker took it: the upstream never heard of it
  await waitFor(async () => (await stack.simStats()).inflight === 0, 10_000, 'the upstream to be idle');
  expect((await stack.simStats()).requests.images - callsBefore).toBe(0);
}, 60_000);
