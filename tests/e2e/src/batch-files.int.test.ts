import { ListObjectsCommand } from '@aws-sdk/client-s3';
import OpenAI, { toFile } from 'openai';
import { createBlobStore } from '@relay/core';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startStack, type Stack } from './stack.js';

/** OpenAI's Files API as the official SDK drives it, for batch inputs. */
let stack: Stack;
let client: OpenAI;
let other: OpenAI;
const MAX_LINES = 50;
const MAX_BYTES = 64 * 1024;

beforeAll(async () => {
  stack = await startStack({ tuning: { api: { batchFileMaxLines: MAX_LINES, batchFileMaxBytes: MAX_BYTES } } });
  client = new OpenAI({ baseURL: `${stack.url}/v1`, apiKey: (await stack.newKey()).key, maxRetries: 0 });
  other = new OpenAI({ baseURL: `${stack.url}/v1`, apiKey: (await stack.newKey()).key, maxRetries: 0 });
}, 60_000);
afterAll(() => stack?.close());

const line = (i: number) =>
  JSON.stringify({
    custom_id: `req-${i}`,
    method: 'POST',
    url: '/v1/images/generations',
    body: { model: 'vendor-gen-4-0-250828', prompt: `lighthouse ${i}` },
  });
const jsonl = (n: number, trailingNewline = true) =>
  Array.from({ length: n }, (_, i) => line(i)).join('\n') + (trailingNewline ? '\n' : '');

test('upload, retrieve, list, read back and delete a batch input file', async () => {
  const text = jsonl(3);
  const file = await client.files.create({ file: await toFile(Buffer.from(text), 'prompts.jsonl'), purpose: 'batch' });
  expect(file).toMatchObject({
    object: 'file',
    bytes: Buffer.byteLength(text),
    filename: 'prompts.jsonl',
    purpose: 'batch',
    status: 'processed',
  });
  expect(file.id).toMatch(/^file-[0-9a-f]{24}$/);
  expect(await client.files.retrieve(file.id)).toEqual(file);
  expect(await (await client.files.content(file.id)).text()).toBe(text);

  const second = await client.files.create({ file: await toFile(Buffer.from(jsonl(2, false)), 'more.jsonl'), purpose: 'batch' });
  const page = await client.files.list();
  expect(page.data.map((f) => f.id)).toEqual([second.id, file.id]);
  const after = await client.files.list({ after: second.id, limit: 1 });
  expect(after.data.map((f) => f.id)).toEqual([file.id]);

  expect(await client.files.delete(file.id)).toEqual({ id: file.id, object: 'file', deleted: true });
  await expect(client.files.retrieve(file.id)).rejects.toMatchObject({ status: 404 });
  expect((await client.files.list()).data.map((f) => f.id)).toEqual([second.id]);
});

test("another account's file does not exist for this one", async () => {
  const file = await client.files.create({ file: await toFile(Buffer.from(jsonl(1)), 'mine.jsonl'), purpose: 'batch' });
  await expect(other.files.retrieve(file.id)).rejects.toMatchObject({ status: 404 });
  await expect(other.files.content(file.id)).rejects.toMatchObject({ status: 404 });
  await expect(other.files.delete(file.id)).rejects.toMatchObject({ status: 404 });
  expect((await other.files.list()).data).toEqual([]);
  expect((await client.files.retrieve(file.id)).id).toBe(file.id);
});

test('limits and bad uploads: a clear error, and nothing is kept', async () => {
  const before = await stack.redisFootprint();
  await expect(
    client.files.create({ file: await toFile(Buffer.from(jsonl(MAX_LINES + 1)), 'long.jsonl'), purpose: 'batch' }),
  ).rejects.toMatchObject({
    status: 400,
    error: { message: `the file has over ${MAX_LINES} lines, the most a batch may hold`, param: 'file' },
  });
  await expect(
    client.files.create({ file: await toFile(Buffer.alloc(MAX_BYTES + 1, 'x'), 'big.jsonl'), purpose: 'batch' }),
  ).rejects.toMatchObject({ status: 413 });
  await expect(client.files.create({ file: await toFile(Buffer.from(jsonl(1)), 'x.jsonl'), purpose: 'fine-tune' })).rejects.toMatchObject({
    status: 400,
    error: { param: 'purpose' },
  });
  const key = (client as unknown as { apiKey: string }).apiKey;
  const notMultipart = await fetch(`${stack.url}/v1/files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: '{}',
  });
  expect(notMultipart.status).toBe(415);
  const form = new FormData();
  form.set('purpose', 'batch');
  const noFile = await fetch(`${stack.url}/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
  expect(noFile.status).toBe(400);
  expect(((await noFile.json()) as { error: { message: string } }).error.message).toMatch(/no file part/);
  expect((await fetch(`${stack.url}/v1/files`, { method: 'POST', body: form })).status).toBe(401);
  for (const id of ['file-nope', 'constructor', '__proto__', `file-${'0'.repeat(24)}`]) {
    const res = await fetch(`${stack.url}/v1/files/${id}`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(404);
  }
  // refused uploads leave nothing in Redis (the rate-limit bucket aside) and nothing in the store
  expect((await stack.redisFootprint()).keys).toBeLessThanOrEqual(before.keys + 2);
  const store = createBlobStore({ ...stack.s3.env, S3_FORCE_PATH_STYLE: true });
  const stored = (await store.client.send(new ListObjectsCommand({ Bucket: store.bucket, Prefix: 'batch-files/' }))).Contents ?? [];
  const kept = (await client.files.list()).data.map((f) => `batch-files/${f.id}.jsonl`);
  expect(stored.map((o) => o.Key).sort()).toEqual(kept.sort());
});
