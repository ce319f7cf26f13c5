import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest';
import { waitFor } from '@relay/testkit';
import { imageDimensions } from '@relay/simulator';
import { readZip } from './zip.js';
import { client as clientOf, jsonl, lines, until, upload, type OutputLine } from './batch-helpers.js';
import { postJson, startStack, type Stack } from './stack.js';

/** The Batches API as the official openai SDK drives it, for images (speech: batches-speech.int.test.ts). */
let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 60_000);
afterAll(() => stack?.close());
beforeEach(async () => {
  await fetch(`${stack.sim.url}/_sim/reset`, { method: 'POST' });
});
const client = (balance?: number) => clientOf(stack, balance);

const byId = (list: OutputLine[]) => Object.fromEntries(list.map((l) => [l.custom_id, l]));

test('an image batch: plain lines and a set run, rule-breaking lines are refused with the synchronous 400, charged exactly what was delivered', async () => {
  const { openai, key, accountId } = await client();
  const before = await stack.account(accountId);
  const seeded = { model: 'vendor-gen-5-0-260128', prompt: 'a seeded fox', seed: 7 };
  const inline = { model: 'vendor-gen-4-0-250828', prompt: 'a fox', response_format: 'b64_json' };
  const input = jsonl('/v1/images/generations', [
    { custom_id: 'plain-4-0', body: { model: 'vendor-gen-4-0-250828', prompt: 'a lighthouse' } },
    { custom_id: 'plain-5-0', body: { model: 'vendor-gen-5-0-260128', prompt: 'a harbour', watermark: false, size: '2K' } },
    {
      custom_id: 'set-of-3',
      body: {
        model: 'vendor-gen-4-5-251128',
        prompt: 'a story in 3 images',
        sequential_image_generation: 'auto',
        sequential_image_generation_options: { max_images: 3 },
      },
    },
    { custom_id: 'breaks-a-rule', body: seeded },
    { custom_id: 'wants-base64', body: inline },
  ]);
  const file = await upload(openai, input);
  const created = await openai.batches.create({
    input_file_id: file.id,
    endpoint: '/v1/images/generations',
    completion_window: '24h',
    metadata: { project: 'ci' },
  });
  expect(created).toMatchObject({
    object: 'batch',
    status: 'in_progress',
    endpoint: '/v1/images/generations',
    input_file_id: file.id,
    metadata: { project: 'ci' },
  });
  expect(created.request_counts).toEqual({ total: 5, completed: 0, failed: 2 });
  // held at creation: the most the three runnable lines can cost (1 + 1 + 3 images)
  expect((await stack.account(accountId)).reserved).toBe(30_000 + 35_000 + 3 * 40_000);

  const batch = await until(openai, created.id);
  expect(batch.status).toBe('completed');
  expect(batch.request_counts).toEqual({ total: 5, completed: 3, failed: 2 });
  expect(batch.completed_at).toBeGreaterThanOrEqual(batch.created_at);

  const output = byId(await lines(openai, batch.output_file_id));
  expect(Object.keys(output).sort()).toEqual(['plain-4-0', 'plain-5-0', 'set-of-3']);
  const set = output['set-of-3']!.response!;
  expect(set.status_code).toBe(200);
  const { data } = set.body as { data: Array<{ url: string; size: string; b64_json?: string }> };
  expect(data).toHaveLength(3);
  for (const entry of data) {
    expect(entry.b64_json).toBeUndefined();
    expect(imageDimensions(Buffer.from(await (await fetch(entry.url)).arrayBuffer()))).toEqual({ width: 2048, height: 2048 });
  }
  expect(output['plain-5-0']!.id).toMatch(/^batch_req_[0-9a-f]{32}$/);

  // the refused lines carry exactly what the synchronous call answers
  const errors = byId(await lines(openai, batch.error_file_id));
  for (const [customId, body] of [
    ['breaks-a-rule', seeded],
    ['wants-base64', inline],
  ] as const) {
    const line = errors[customId]!;
    expect(line.response!.status_code).toBe(400);
    if (customId === 'breaks-a-rule') {
      const sync = await postJson(`${stack.url}/v1/images/generations`, body, key);
      expect(sync.status).toBe(400);
      expect(line.response!.body).toEqual(await sync.json());
    } else {
      expect(line.response!.body).toMatchObject({ error: { param: 'response_format', type: 'invalid_request_error' } });
    }
  }
  expect((await stack.simStats()).requests.images).toBe(3);

  // five images delivered, charged exactly, nothing left held; the ledger adds up
  const after = await stack.account(accountId);
  const charged = 30_000 + 35_000 + 3 * 40_000;
  expect(before.balance - after.balance).toBe(charged);
  expect(after.reserved).toBe(0);
  expect(after.ledger.filter((e) => e.type === 'settle').reduce((sum, e) => sum + e.charged, 0)).toBe(charged);
  expect(after.ledger.reduce((sum, e) => sum + e.amount, 0)).toBe(after.balance);
  expect(batch).toMatchObject({ progress: { images: 5, charged, held: 0 } });

  // the archive: every file once, and a manifest whose sizes and hashes are the files'
  const zip = await readZip(
    await (await fetch(`${stack.url}/v1/batches/${batch.id}/archive`, { headers: { authorization: `Bearer ${key}` } })).arrayBuffer(),
  );
  const manifest = JSON.parse(zip.get('manifest.json')!.toString()) as {
    files: Record<string, Array<{ path: string; bytes: number; sha256: string; url: string }>>;
  };
  expect(Object.keys(manifest.files).sort()).toEqual(['plain-4-0', 'plain-5-0', 'set-of-3']);
  expect(manifest.files['set-of-3']).toHaveLength(3);
  for (const files of Object.values(manifest.files)) {
    for (const entry of files) {
      const bytes = zip.get(entry.path)!;
      expect(bytes.length).toBe(entry.bytes);
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(entry.sha256);
      expect(Buffer.from(await (await fetch(entry.url)).arrayBuffer()).equals(bytes)).toBe(true);
    }
  }
  expect(zip.size).toBe(1 + 5);
});

test('a malformed input fails the batch in validation with line numbers, holding nothing', async () => {
  const { openai, accountId } = await client();
  const good = JSON.stringify({
    custom_id: 'a',
    method: 'POST',
    url: '/v1/images/generations',
    body: { model: 'vendor-gen-4-0-250828', prompt: 'x' },
  });
  const text = [
    good,
    'not json',
    good,
    JSON.stringify({ custom_id: 'b', method: 'POST', url: '/v1/chat/completions', body: {} }),
    JSON.stringify({ method: 'POST', url: '/v1/images/generations', body: {} }),
  ].join('\n');
  const file = await upload(openai, text);
  const batch = await openai.batches.create({ input_file_id: file.id, endpoint: '/v1/images/generations', completion_window: '24h' });
  expect(batch.status).toBe('failed');
  expect(batch.failed_at).toBeTypeOf('number');
  expect(batch.errors!.data!.map((e) => [e.line, e.code])).toEqual([
    [2, 'invalid_json_line'],
    [3, 'duplicate_custom_id'],
    [4, 'mismatched_url'],
    [5, 'missing_custom_id'],
  ]);
  expect((await stack.account(accountId)).reserved).toBe(0);
  expect((await stack.simStats()).requests.images).toBe(0);
  await expect(
    openai.batches.create({ input_file_id: file.id, endpoint: '/v1/embeddings', completion_window: '24h' }),
  ).rejects.toMatchObject({ status: 400, error: { param: 'endpoint' } });
  await expect(
    openai.batches.create({ input_file_id: 'file-000000000000000000000000', endpoint: '/v1/images/generations', completion_window: '24h' }),
  ).rejects.toMatchObject({ status: 404 });
});

test('a batch the balance cannot cover is a 402 in the OpenAI dialect, and leaves nothing behind', async () => {
  const { openai, accountId } = await client(50_000);
  const file = await upload(
    openai,
    jsonl(
      '/v1/images/generations',
      [0, 1].map((i) => ({ custom_id: `l${i}`, body: { model: 'vendor-gen-4-0-250828', prompt: `p${i}` } })),
    ),
  );
  await expect(
    openai.batches.create({ input_file_id: file.id, endpoint: '/v1/images/generations', completion_window: '24h' }),
  ).rejects.toMatchObject({
    status: 402,
    error: { type: 'insufficient_balance' },
  });
  expect((await openai.batches.list()).data).toEqual([]);
  expect(await stack.account(accountId)).toMatchObject({ balance: 50_000, reserved: 0 });
});

test('cancel: nothing more starts, lines in flight finish and are kept, the rest is released', async () => {
  const { openai, accountId } = await client();
  const before = await stack.account(accountId);
  await stack.fault({ type: 'hold', api: 'images', times: 2 });
  const file = await upload(
    openai,
    jsonl(
      '/v1/images/generations',
      Array.from({ length: 12 }, (_, i) => ({ custom_id: `c${i}`, body: { model: 'vendor-gen-4-0-250828', prompt: `cancel me ${i}` } })),
    ),
  );
  const created = await openai.batches.create({ input_file_id: file.id, endpoint: '/v1/images/generations', completion_window: '24h' });
  await waitFor(async () => (await stack.simStats()).holding === 2, 30_000, 'two calls held at the upstream');
  const cancelling = await openai.batches.cancel(created.id);
  expect(cancelling.status).toBe('cancelling');
  expect(cancelling.cancelling_at).toBeTypeOf('number');
  // the other lines are taken back while the two held calls still run
  await until(
    openai,
    created.id,
    (b) => b.request_counts!.failed >= 10 - (b.request_counts!.completed ?? 0),
    'the lines not begun to be taken back',
  );
  await stack.release();
  const batch = await until(openai, created.id);
  expect(batch.status).toBe('cancelled');
  const output = await lines(openai, batch.output_file_id);
  const errors = await lines(openai, batch.error_file_id);
  expect(output.length + errors.length).toBe(12);
  expect(output.length).toBeGreaterThanOrEqual(2);
  expect(errors.every((l) => l.response === null && l.error!.code === 'batch_cancelled')).toBe(true);
  expect(batch.request_counts).toEqual({ total: 12, completed: output.length, failed: errors.length });
  const after = await stack.account(accountId);
  expect(before.balance - after.balance).toBe(output.length * 30_000);
  expect(after.reserved).toBe(0);
  await expect(openai.batches.cancel(created.id)).rejects.toMatchObject({ status: 409 });
});

test('list pages newest first; another account sees none of it', async () => {
  const { openai } = await client();
  const { openai: other } = await client();
  const file = await upload(
    openai,
    jsonl('/v1/images/generations', [{ custom_id: 'x', body: { model: 'vendor-gen-4-0-250828', prompt: 'x' } }]),
  );
  const ids: string[] = [];
  for (let i = 0; i < 3; i++)
    ids.push((await openai.batches.create({ input_file_id: file.id, endpoint: '/v1/images/generations', completion_window: '24h' })).id);
  const first = await openai.batches.list({ limit: 2 });
  expect(first.data.map((b) => b.id)).toEqual([ids[2], ids[1]]);
  expect(first.has_more).toBe(true);
  const all: string[] = [];
  for await (const batch of openai.batches.list({ limit: 2 })) all.push(batch.id);
  expect(all).toEqual([...ids].reverse());
  await expect(other.batches.retrieve(ids[0]!)).rejects.toMatchObject({ status: 404 });
  expect((await other.batches.list()).data).toEqual([]);
  for (const id of ids) await until(openai, id);
});
