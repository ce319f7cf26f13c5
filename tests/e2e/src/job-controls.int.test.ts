import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest';
import { startStack, type Stack } from './stack.js';

/**
 * The caller's controls over a job by id: cancel, Cancel-After deadlines and the job's events.
 * One upstream call at a time, and the simulator holding it: a job behind the held one has surely
 * not begun, whatever the machine's speed.
 */
let stack: Stack;
beforeAll(async () => {
  stack = await startStack({
    // a 429 puts its job off for ten minutes: a stopped job ends when it is stopped, never by the wait running out
    queues: { images: { maxConcurrent: 1, dispatchWindow: 1 } },
    tuning: { worker: { rateLimitDelayMs: 600_000, rateLimitMaxDelayMs: 600_000 } },
  });
}, 60_000);
afterAll(() => stack?.close());
beforeEach(async () => {
  await stack.release();
  await fetch(`${stack.sim.url}/_sim/reset`, { method: 'POST' });
});

const IMAGE = { model: 'vendor-gen-4-0-250828', prompt: 'a lighthouse at dusk' };
const generate = (key: string, headers: Record<string, string> = {}) =>
  fetch(`${stack.url}/v1/images/generations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
    body: JSON.stringify(IMAGE),
  });
const queued = async (key: string, headers: Record<string, string> = {}) => {
  const res = await generate(key, { prefer: 'respond-async', ...headers });
  expect(res.status).toBe(202);
  return ((await res.json()) as { id: string }).id;
};
const jobs = (key: string, path: string, method = 'GET') =>
  fetch(`${stack.url}/v1/jobs/${path}`, { method, headers: { authorization: `Bearer ${key}` } });
/** A job that holds the one upstream slot until the test releases it. */
async function holdTheSlot(key: string) {
  await stack.fault({ type: 'hold', api: 'images' });
  const id = await queued(key);
  await vi.waitFor(async () => expect((await stack.simStats()).holding).toBe(1), { timeout: 20_000 });
  return id;
}
const money = async (accountId: string) => {
  const { reserved, ledger } = await stack.account(accountId);
  return { reserved, settled: ledger.filter((e) => e.type === 'settle').length };
};

/** An events stream read as it comes: the event types so far, and the next on demand. */
function events(res: Response) {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const seen: Array<{ type: string; [key: string]: unknown }> = [];
  return {
    seen,
    async until(type: string) {
      while (!seen.some((e) => e.type === type)) {
        const step = await reader.read();
        if (step.done) throw new Error(`the stream ended before ${type}: ${JSON.stringify(seen)}`);
        text += decoder.decode(step.value, { stream: true });
        const blocks = text.split('\n\n');
        text = blocks.pop()!;
        for (const block of blocks) seen.push(JSON.parse(block.split('\ndata: ')[1]!) as { type: string });
      }
      return seen.map((e) => e.type);
    },
  };
}

describe('POST /v1/jobs/{id}/cancel', () => {
  test('a job that has not begun: cancelled, its money back, and so it stays; a finished one is a 409', async () => {
    const { key, accountId } = await stack.newKey();
    const running = await holdTheSlot(key);
    const waiting = await queued(key);

    const cancelled = await jobs(key, `${waiting}/cancel`, 'POST');
    expect(cancelled.status).toBe(200);
    expect(await cancelled.json()).toMatchObject({ id: waiting, object: 'relay.job', status: 'cancelled' });
    expect((await jobs(key, `${waiting}/cancel`, 'POST')).status).toBe(200);
    const looked = await jobs(key, waiting);
    expect(looked.status).toBe(409);
    expect(await looked.json()).toMatchObject({ error: { code: 'cancelled', message: expect.stringMatching(/cancelled by its owner/) } });

    // begun: its one call is in flight, so it runs to its end and is charged for what it delivers
    const begun = await jobs(key, `${running}/cancel`, 'POST');
    expect(begun.status).toBe(202);
    expect(await begun.json()).toMatchObject({ id: running, status: 'running', cancel_requested: true });
    await stack.release();
    await vi.waitFor(async () => expect((await jobs(key, running)).status).toBe(200), { timeout: 20_000 });
    const finished = await jobs(key, `${running}/cancel`, 'POST');
    expect(finished.status).toBe(409);
    expect(await finished.json()).toMatchObject({ error: { code: 'conflict', message: expect.stringMatching(/already ended/) } });
    // the cancelled job held nothing and was charged nothing; the held one was charged once
    expect(await money(accountId)).toEqual({ reserved: 0, settled: 1 });
  });

  test("another account's job, or none: 404, the same for both", async () => {
    const owner = await stack.newKey();
    const other = await stack.newKey();
    const held = await holdTheSlot(owner.key);
    const waiting = await queued(owner.key);
    for (const path of [`${waiting}/cancel`, 'img_00000000000000000000000000000000/cancel']) {
      const res = await jobs(other.key, path, 'POST');
      expect(res.status).toBe(404);
    }
    expect((await jobs(other.key, waiting)).status).toBe(404);
    // nothing of this test calls upstream after it: the next one counts the simulator's calls
    expect((await jobs(owner.key, `${waiting}/cancel`, 'POST')).status).toBe(200);
    await stack.release();
    await vi.waitFor(async () => expect((await jobs(owner.key, held)).status).toBe(200), { timeout: 20_000 });
  });
});

describe('POST /v1/jobs/{id}/cancel of a running job', () => {
  afterEach(() => stack.resetBreakers()); // the 429s cooled the channel for ten minutes
  const putOff = (key: string, n: number) =>
    fetch(`${stack.url}/v1/images/generations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, prefer: 'respond-async' },
      body: JSON.stringify({ ...IMAGE, n }),
    }).then(async (res) => ((await res.json()) as { id: string }).id);
  const stop = async (key: string, id: string) => {
    const res = await jobs(key, `${id}/cancel`, 'POST');
    expect(res.status).toBe(202);
    expect(await res.json()).toMatchObject({ id, status: 'running', cancel_requested: true });
  };

  test('what it delivered is kept and charged; a generation put off by a 429 is never asked again', async () => {
    const { key, accountId } = await stack.newKey();
    // the first call passes (a latency of 0 is its fault), the second is a 429
    await stack.fault([
      { type: 'latency', api: 'images', ms: 0 },
      { type: 'error', api: 'images', status: 429 },
    ]);
    const id = await putOff(key, 2);
    // one generation delivered, its sibling answered 429: the job waits ten minutes for the channel
    await vi.waitFor(async () => expect((await stack.simStats()).statuses).toEqual({ 200: 1, 429: 1 }), { timeout: 20_000 });
    await stop(key, id);
    await vi.waitFor(async () => expect((await jobs(key, id)).status).toBe(200), { timeout: 20_000 });
    const answer = (await (await jobs(key, id)).json()) as { data: unknown[]; failed: Array<{ code: string }> };
    expect(answer.data).toHaveLength(1);
    expect(answer.failed).toEqual([
      expect.objectContaining({ code: 'cancelled', message: expect.stringMatching(/cancelled by its owner while it ran/) }),
    ]);
    expect((await stack.simStats()).requests.images).toBe(2);
    const { reserved, spent, ledger } = await stack.account(accountId);
    expect({ reserved, settles: ledger.filter((e) => e.type === 'settle').length }).toEqual({ reserved: 0, settles: 1 });
    expect(spent).toBe(ledger.find((e) => e.type === 'settle')!.charged);
    expect(await events(await jobs(key, `${id}/events`)).until('completed')).toEqual(['image', 'completed']);
  });

  test('one that delivered nothing ends cancelled, its whole reservation back', async () => {
    const { key, accountId } = await stack.newKey();
    await stack.fault({ type: 'error', api: 'images', status: 429 });
    const id = await putOff(key, 1);
    await vi.waitFor(async () => expect((await stack.simStats()).statuses).toEqual({ 429: 1 }), { timeout: 20_000 });
    await stop(key, id);
    await vi.waitFor(async () => expect((await jobs(key, id)).status).toBe(409), { timeout: 20_000 });
    expect(await (await jobs(key, id)).json()).toMatchObject({
      error: { code: 'cancelled', message: expect.stringMatching(/while it ran/) },
    });
    expect((await stack.simStats()).requests.images).toBe(1);
    const { reserved, spent, balance } = await stack.account(accountId);
    expect({ reserved, spent }).toEqual({ reserved: 0, spent: 0 });
    expect(balance).toBeGreaterThan(0);
    expect(await events(await jobs(key, `${id}/events`)).until('cancelled')).toEqual(['cancelled']);
  });
});

describe('Cancel-After', () => {
  test('a caller waiting on a job that has not begun by its deadline gets a 409 cancelled, and nothing is charged', async () => {
    const { key, accountId } = await stack.newKey();
    await holdTheSlot(key);
    const res = await generate(key, { 'cancel-after': '300ms', prefer: 'wait=60' });
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ error: { code: 'cancelled', message: expect.stringMatching(/Cancel-After deadline/) } });
    expect((await money(accountId)).settled).toBe(0);
  });

  test('an async job the worker reaches after its deadline is cancelled then, uncharged', async () => {
    const { key, accountId } = await stack.newKey();
    await holdTheSlot(key);
    const late = await queued(key, { 'cancel-after': '200ms' });
    await sleep(250); // the deadline passes while the held call keeps the job from beginning
    await stack.release();
    await vi.waitFor(async () => expect((await jobs(key, late)).status).toBe(409), { timeout: 20_000 });
    expect(await (await jobs(key, late)).json()).toMatchObject({ error: { code: 'cancelled' } });
    expect(await money(accountId)).toEqual({ reserved: 0, settled: 1 });
  });

  test('a malformed value is a 400 naming the header, before anything is held', async () => {
    const { key, accountId } = await stack.newKey();
    const res = await generate(key, { 'cancel-after': 'soon' });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { param: 'Cancel-After' } });
    expect((await stack.account(accountId)).reserved).toBe(0);
  });
});

describe('GET /v1/jobs/{id}/events', () => {
  test('queued, started, each image, completed, then the stream ends', async () => {
    const { key } = await stack.newKey();
    await holdTheSlot(key);
    const id = await queued(key);
    const stream = events(await jobs(key, `${id}/events`));
    expect(await stream.until('queued')).toEqual(['queued']);
    await stack.release();
    expect(await stream.until('completed')).toEqual(['queued', 'started', 'image', 'completed']);
    expect(stream.seen[2]).toMatchObject({ job: id, index: 0, file_id: expect.stringMatching(new RegExp(`^${id}-0\\.`)) });
  });

  test('a cancelled job: its stream ends with cancelled; a late subscriber of a finished job gets the end at once', async () => {
    const { key } = await stack.newKey();
    const first = await holdTheSlot(key);
    const id = await queued(key);
    const stream = events(await jobs(key, `${id}/events`));
    await stream.until('queued');
    expect((await jobs(key, `${id}/cancel`, 'POST')).status).toBe(200);
    expect(await stream.until('cancelled')).toEqual(['queued', 'cancelled']);
    await expect(events(await jobs(key, `${id}/events`)).until('cancelled')).resolves.toEqual(['cancelled']);
    await stack.release();
    await vi.waitFor(async () => expect((await jobs(key, first)).status).toBe(200), { timeout: 20_000 });
    expect(await events(await jobs(key, `${first}/events`)).until('completed')).toEqual(['image', 'completed']);
  });
});
