import { afterAll, beforeAll, expect, test } from 'vitest';
import { waitFor } from '@relay/testkit';
import { postJson, startStack, type Stack } from '@relay/e2e';
import { renderImage } from '@relay/simulator';
import { generate } from './helpers.js';

let stack: Stack;
beforeAll(async () => {
  // an outage longer than the worker keeps retrying the store
  stack = await startStack({ ownS3: true, tuning: { api: { jobAttempts: 2 }, worker: { storeRetryMs: 300 } } });
}, 60_000);
afterAll(async () => stack?.close());

test('S3 unreachable: retried, then a clear 503 with the money given back; fine again once it returns', async () => {
  const { key, accountId } = await stack.newKey({ balance: 1_000_000 });
  const before = await generate(stack, key);
  const link = ((await before.json()) as { data: Array<{ url: string }> }).data[0]!.url;
  await stack.s3.stop();

  const res = await generate(stack, key);
  expect(res.status).toBe(503);
  expect(res.headers.get('retry-after')).not.toBeNull();
  expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/could not be copied into the store/);
  expect((await stack.simStats()).requests.images).toBe(2); // generated once, copied twice (checkpoint)

  const input = `data:image/png;base64,${renderImage({ width: 64, height: 64, format: 'png', watermark: false, hue: 1 }).toString('base64')}`;
  const staged = await generate(stack, key, { model: 'vendor-gen-4-0-250828', prompt: 'x', image: input });
  expect(staged.status).toBe(503);
  expect((await fetch(link)).status).toBe(503);
  expect(await stack.account(accountId)).toMatchObject({ balance: 1_000_000 - 30_000, reserved: 0 });

  await stack.s3.start!();
  expect((await generate(stack, key)).status).toBe(200);
  expect((await fetch(link)).status).toBe(200);
}, 60_000);

test('a finished, paid result the store cannot give back right now: 503 naming the job, then the result', async () => {
  const { key, accountId } = await stack.newKey({ balance: 10_000_000 });
  const accepted = await postJson(
    `${stack.url}/v1beta/models/vendor-2.5-flash-preview-tts:generateContent`,
    {
      contents: [{ parts: [{ text: 'read me back later' }] }],
      generationConfig: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } } },
    },
    undefined,
    { 'x-goog-api-key': key, Prefer: 'respond-async' },
  );
  expect(accepted.status).toBe(202);
  const { id } = (await accepted.json()) as { id: string };
  await waitFor(
    async () => (await stack.account(accountId)).ledger.some((e) => e.type === 'settle' && e.jobId === id),
    30_000,
    'the charge',
  );
  await stack.s3.stop();

  const meanwhile = await fetch(`${stack.url}/v1/jobs/${id}`, { headers: { 'x-goog-api-key': key } });
  expect(meanwhile.status).toBe(503);
  expect(meanwhile.headers.get('location')).toBe(`/v1/jobs/${id}`);
  expect(Number(meanwhile.headers.get('retry-after'))).toBeGreaterThan(0);
  const error = ((await meanwhile.json()) as { error: { status: string; message: string } }).error;
  expect(error.status).toBe('UNAVAILABLE');
  expect(error.message).toContain(id);
  expect(error.message).not.toMatch(/queue/);

  await stack.s3.start!();
  const later = await fetch(`${stack.url}/v1/jobs/${id}`, { headers: { 'x-goog-api-key': key } });
  expect(later.status).toBe(200);
  expect(((await later.json()) as { candidates: unknown[] }).candidates).toHaveLength(1);
}, 60_000);
