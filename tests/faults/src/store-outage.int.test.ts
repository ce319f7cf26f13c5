import { afterAll, beforeAll, expect, test } from 'vitest';
import { startStack, type Stack } from '@relay/e2e';
import { renderImage } from '@relay/simulator';
import { generate } from './helpers.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ ownS3: true, api: { JOB_ATTEMPTS: '2' } });
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
