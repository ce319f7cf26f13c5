import { afterAll, beforeAll, expect, test } from 'vitest';
import { startStack, type Stack } from '@relay/e2e';
import { generate, settlementsPerJob, untilSimInflight } from './helpers.js';

let stack: Stack;
// short locks so a dead worker's job is taken over in seconds, not the default 30 s
const locks = { JOB_LOCK_MS: '1500', STALLED_CHECK_MS: '500' };
beforeAll(async () => {
  stack = await startStack({ worker: locks });
}, 60_000);
afterAll(async () => stack?.close());

test('a worker killed with SIGKILL mid-job: another worker finishes it, the client gets its answer, charged once', async () => {
  const { key, accountId } = await stack.newKey();
  await stack.fault({ type: 'latency', api: 'images', ms: 1_500 });
  const pending = generate(stack, key);
  await untilSimInflight(stack, 1);
  await stack.spawn('worker', locks);
  await stack.worker.stop('SIGKILL');

  const res = await pending;
  expect(res.status).toBe(200);
  const body = (await res.json()) as { data: Array<{ url: string }> };
  expect((await fetch(body.data[0]!.url)).status).toBe(200);
  expect([...(await settlementsPerJob(stack, accountId)).values()]).toEqual([1]);
  expect((await stack.simStats()).requests.images).toBe(2);
}, 30_000);
