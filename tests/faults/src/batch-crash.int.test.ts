import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { waitFor } from '@relay/testkit';
import { startStack, type Stack } from '@relay/e2e';
import { settlementsPerJob, untilSimHolding, workerCounter } from './helpers.js';

let stack: Stack;
// short locks: a dead worker's jobs (and its hold on the batch) are taken over in seconds
const tuning = { worker: { jobLockMs: 1_500, stalledCheckMs: 500, batchFeedAhead: 8 } };
beforeAll(async () => {
  stack = await startStack({ ownRedis: true, ownS3: true, tuning });
}, 60_000);
afterAll(async () => stack?.close());

const LINES = 30;
const PRICE = 30_000;

test('a batch through api and worker SIGKILLs, a Redis restart and a store outage: it completes, every line charged once, the output complete', async () => {
  const { key, accountId } = await stack.newKey();
  const before = await stack.account(accountId);
  const api = await stack.spawn('api');
  const client = new OpenAI({ baseURL: `${api.ready.url}/v1`, apiKey: key, maxRetries: 0 });
  const input = Array.from({ length: LINES }, (_, i) =>
    JSON.stringify({
      custom_id: `line-${i}`,
      method: 'POST',
      url: '/v1/images/generations',
      body: { model: 'vendor-gen-4-0-250828', prompt: `crash ${i}` },
    }),
  ).join('\n');
  const file = await client.files.create({ file: await toFile(Buffer.from(input), 'crash.jsonl'), purpose: 'batch' });
  // the first three calls are held: the worker surely dies with lines in flight
  await stack.fault({ type: 'hold', api: 'images', times: 3 });
  const created = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/images/generations', completion_window: '24h' });
  await untilSimHolding(stack, 3);

  await api.stop('SIGKILL');
  const second = await stack.spawn('worker');
  await stack.worker.stop('SIGKILL');
  stack.worker = second;
  await stack.redis.stop();
  await stack.redis.start!();
  // the dead worker's calls: answered to nobody
  expect(await stack.release()).toBe(3);
  // the store goes away while lines are being copied, and comes back
  await stack.fault({ type: 'hold', api: 'images' });
  await untilSimHolding(stack, 1);
  await stack.s3.stop();
  const retries = await workerCounter(stack, 'relay_store_retries_total');
  await stack.release();
  await waitFor(async () => (await workerCounter(stack, 'relay_store_retries_total')) > retries, 30_000, 'a refused store write');
  await stack.s3.start!();

  const reader = new OpenAI({ baseURL: `${stack.url}/v1`, apiKey: key, maxRetries: 2 });
  const batch = await waitFor(
    async () => {
      const b = await reader.batches.retrieve(created.id);
      return b.status === 'completed' ? b : undefined;
    },
    90_000,
    'the batch to complete',
  );
  expect(batch.request_counts).toEqual({ total: LINES, completed: LINES, failed: 0 });
  const lines = (await (await reader.files.content(batch.output_file_id!)).text())
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { custom_id: string; response: { status_code: number; request_id: string } });
  expect(lines.map((l) => l.custom_id).sort()).toEqual(Array.from({ length: LINES }, (_, i) => `line-${i}`).sort());
  expect(lines.every((l) => l.response.status_code === 200)).toBe(true);
  expect(batch.error_file_id).toBeFalsy();

  // one settlement per line, none for anything else, and the money adds up
  const settled = await settlementsPerJob(stack, accountId);
  expect([...settled.keys()].sort()).toEqual(lines.map((l) => l.response.request_id).sort());
  expect([...settled.values()].every((n) => n === 1)).toBe(true);
  const after = await stack.account(accountId);
  expect(before.balance - after.balance).toBe(LINES * PRICE);
  expect(after.reserved).toBe(0);
  expect(after.ledger.reduce((sum, e) => sum + e.amount, 0)).toBe(after.balance);
}, 120_000);
