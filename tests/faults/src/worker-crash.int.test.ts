import { afterAll, beforeAll, expect, test } from 'vitest';
import { waitFor } from '@relay/testkit';
import { postJson, startStack, type Stack } from '@relay/e2e';
import { generate, settlementsPerJob, untilSimHolding } from './helpers.js';

let stack: Stack;
// short locks so a dead worker's job is taken over in seconds, not the default 30 s
const tuning = { worker: { jobLockMs: 1_500, stalledCheckMs: 500 } };
beforeAll(async () => {
  stack = await startStack({ tuning });
}, 60_000);
afterAll(async () => stack?.close());

test('a worker killed with SIGKILL mid-job: another worker finishes it, the client gets its answer, charged once', async () => {
  const { key, accountId } = await stack.newKey();
  const callsBefore = (await stack.simStats()).requests.images;
  // the first call is held until the test lets it go: the worker surely dies mid-call
  await stack.fault({ type: 'hold', api: 'images' });
  const pending = generate(stack, key);
  await untilSimHolding(stack, 1);
  const second = await stack.spawn('worker');
  await stack.worker.stop('SIGKILL');

  const res = await pending;
  expect(res.status).toBe(200);
  const body = (await res.json()) as { data: Array<{ url: string }> };
  expect((await fetch(body.data[0]!.url)).status).toBe(200);
  expect([...(await settlementsPerJob(stack, accountId)).values()]).toEqual([1]);
  expect((await stack.simStats()).requests.images - callsBefore).toBe(2);
  expect(await stack.release()).toBe(1); // the dead worker's call, still held
  stack.worker = second;
}, 60_000);

test('a job whose workers die twice (maxStalledCount 1): a retryable 503 in the endpoint dialect, nothing charged', async () => {
  const { key, accountId } = await stack.newKey({ balance: 10_000_000 });
  await stack.fault({ type: 'hold', api: 'speech', times: 2 });
  const pending = postJson(
    `${stack.url}/v1beta/models/vendor-2.5-flash-preview-tts:generateContent`,
    {
      contents: [{ parts: [{ text: 'twice unlucky' }] }],
      generationConfig: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } } },
    },
    undefined,
    { 'x-goog-api-key': key },
  );
  const holdingBefore = (await stack.simStats()).holding;
  await untilSimHolding(stack, holdingBefore + 1);
  const second = await stack.spawn('worker');
  await stack.worker.stop('SIGKILL');
  await untilSimHolding(stack, holdingBefore + 2);
  const third = await stack.spawn('worker');
  await second.stop('SIGKILL');
  stack.worker = third;

  const res = await pending;
  expect(res.status).toBe(503);
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(await res.json()).toMatchObject({ error: { code: 503, status: 'UNAVAILABLE', message: expect.stringMatching(/interrupted/) } });
  await waitFor(async () => (await stack.account(accountId)).reserved === 0, 10_000, 'the release');
  expect(await stack.account(accountId)).toMatchObject({ balance: 10_000_000, spent: 0 });
  await stack.release();
}, 60_000);
