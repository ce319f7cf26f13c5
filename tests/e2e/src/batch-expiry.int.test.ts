import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { waitFor } from '@relay/testkit';
import { startStack, type Stack } from './stack.js';

/** The completion window, made short: a batch expires with what it finished. */
let stack: Stack;
beforeAll(async () => {
  // four jobs at once: most lines are still waiting their turn when the window closes
  stack = await startStack({ tuning: { api: { batchCompletionWindowSeconds: 2 } }, worker: { WORKER_CONCURRENCY: '4' } });
}, 60_000);
afterAll(() => stack?.close());

test('past its window a batch expires: lines in flight finish and are kept, the rest are batch_expired and released', async () => {
  const { key, accountId } = await stack.newKey();
  const before = await stack.account(accountId);
  const client = new OpenAI({ baseURL: `${stack.url}/v1`, apiKey: key, maxRetries: 0 });
  // every call is held: the lines the workers took are in flight when the window closes
  await stack.fault({ type: 'hold', api: 'images', times: 100 });
  const input = Array.from({ length: 12 }, (_, i) =>
    JSON.stringify({
      custom_id: `e${i}`,
      method: 'POST',
      url: '/v1/images/generations',
      body: { model: 'vendor-gen-4-0-250828', prompt: `expire ${i}` },
    }),
  ).join('\n');
  const file = await client.files.create({ file: await toFile(Buffer.from(input), 'expire.jsonl'), purpose: 'batch' });
  const created = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/images/generations', completion_window: '24h' });
  expect(created.expires_at! - created.created_at).toBe(2);
  await waitFor(async () => (await stack.simStats()).holding >= 1, 30_000, 'a call held');
  // once the window closed, the lines not begun are taken back while the held ones still run
  await waitFor(async () => (await client.batches.retrieve(created.id)).request_counts!.failed > 0, 30_000, 'lines taken back at expiry');
  // a line that began just before may reach the upstream later: released as it comes
  let held = 0;
  const batch = await waitFor(
    async () => {
      held += await stack.release();
      const b = await client.batches.retrieve(created.id);
      return b.status === 'expired' ? b : undefined;
    },
    30_000,
    'the batch to expire',
  );
  expect(batch.expired_at).toBeGreaterThanOrEqual(batch.expires_at!);
  const read = async (id: string | null | undefined) =>
    id
      ? (await (await client.files.content(id)).text())
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { custom_id: string; error: { code: string } | null })
      : [];
  const output = await read(batch.output_file_id);
  const errors = await read(batch.error_file_id);
  expect(output).toHaveLength(held);
  expect(errors).toHaveLength(12 - held);
  expect(errors.every((l) => l.error?.code === 'batch_expired')).toBe(true);
  expect(batch.request_counts).toEqual({ total: 12, completed: held, failed: 12 - held });
  const after = await stack.account(accountId);
  expect(before.balance - after.balance).toBe(held * 30_000);
  expect(after.reserved).toBe(0);
});
