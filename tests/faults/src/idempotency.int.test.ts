import { afterAll, beforeAll, expect, test } from 'vitest';
import { startStack, type Stack } from '@relay/e2e';
import { IMAGE, generate, settlementsPerJob } from './helpers.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 60_000);
afterAll(async () => stack?.close());

test('20 parallel identical requests with one Idempotency-Key: one job, one charge, 20 identical answers', async () => {
  const { key, accountId } = await stack.newKey();
  await stack.fault({ type: 'latency', api: 'images', ms: 300 });
  const headers = { 'Idempotency-Key': 'batch-42/item-7' };
  const answers = await Promise.all(Array.from({ length: 20 }, () => generate(stack, key, IMAGE, headers)));
  expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
  const bodies = await Promise.all(answers.map((r) => r.text()));
  expect(new Set(bodies).size).toBe(1);
  expect(answers.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(19);
  expect([...(await settlementsPerJob(stack, accountId)).values()]).toEqual([1]);
  expect((await stack.simStats()).requests.images).toBe(1);

  // the same key with another body is a conflict the SDK must not retry
  const conflict = await generate(stack, key, { ...IMAGE, prompt: 'something else' }, headers);
  expect(conflict.status).toBe(409);
  expect(conflict.headers.get('x-should-retry')).toBe('false');
  expect(await conflict.json()).toMatchObject({ error: { code: 'idempotency_conflict' } });
  // field order does not make another body
  const reordered = await generate(stack, key, { prompt: IMAGE.prompt, model: IMAGE.model }, headers);
  expect(reordered.status).toBe(200);
  expect(await reordered.text()).toBe(bodies[0]);
  // keys belong to an account: another account may use the same key
  const other = await stack.newKey();
  expect((await generate(stack, other.key, { ...IMAGE, prompt: 'mine' }, headers)).status).toBe(200);
});

test('an error is replayed too, without running the job again', async () => {
  const { key } = await stack.newKey();
  await stack.fault({ type: 'error', api: 'images', status: 400, code: 'InputTextSensitiveContentDetected' });
  const headers = { 'Idempotency-Key': 'moderated-once' };
  const first = await generate(stack, key, IMAGE, headers);
  const second = await generate(stack, key, IMAGE, headers);
  expect([first.status, second.status]).toEqual([400, 400]);
  expect(await second.text()).toBe(await first.text());
});

test('a request refused before queueing (402) does not hold the key: it can be retried after a top-up', async () => {
  const { key, accountId } = await stack.newKey({ balance: 0 });
  const headers = { 'Idempotency-Key': 'after-top-up' };
  expect((await generate(stack, key, IMAGE, headers)).status).toBe(402);
  await stack.admin('POST', `/accounts/${accountId}/credits`, { amount: 30_000 });
  expect((await generate(stack, key, IMAGE, headers)).status).toBe(200);
});
