import { afterAll, beforeAll, expect, test } from 'vitest';
import { waitFor } from '@relay/testkit';
import { postJson, startStack, type Stack } from '@relay/e2e';
import { IMAGE, generate, settlementsPerJob, untilSimHolding, workerCounter } from './helpers.js';

/**
 * The store goes away right after the upstream answered and comes back within `tuning.worker.storeRetryMs`:
 * the paid result waits in the worker's memory (never in Redis) and is stored once the store
 * is back, without a second upstream call.
 */
let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ ownS3: true, tuning: { worker: { storeRetryMs: 60_000 } } });
}, 60_000);
afterAll(async () => stack?.close());

const SPEECH = {
  contents: [{ parts: [{ text: 'the store blinked' }] }],
  generationConfig: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Puck' } } } },
};

async function throughAStoreBlip(api: 'images' | 'speech', send: () => Promise<Response>) {
  await stack.fault({ type: 'hold', api });
  const pending = send();
  await untilSimHolding(stack, 1);
  await stack.s3.stop();
  const retriesBefore = await workerCounter(stack, 'relay_store_retries_total');
  await stack.release();
  await waitFor(async () => (await workerCounter(stack, 'relay_store_retries_total')) > retriesBefore, 30_000, 'a refused store write');
  await stack.s3.start!();
  return pending;
}

test('speech: one upstream call, the clip stored once the store is back, charged once', async () => {
  const { key, accountId } = await stack.newKey();
  const before = (await stack.simStats()).requests.speech;
  const res = await throughAStoreBlip('speech', () =>
    postJson(`${stack.url}/v1beta/models/vendor-2.5-flash-preview-tts:generateContent`, SPEECH, undefined, { 'x-goog-api-key': key }),
  );
  expect(res.status).toBe(200);
  expect((await fetch(res.headers.get('x-relay-audio-url')!)).status).toBe(200);
  expect((await stack.simStats()).requests.speech - before).toBe(1);
  expect([...(await settlementsPerJob(stack, accountId)).values()]).toEqual([1]);
}, 60_000);

test('images: one upstream call, the image stored once the store is back, charged once', async () => {
  const { key, accountId } = await stack.newKey();
  const before = (await stack.simStats()).requests.images;
  const res = await throughAStoreBlip('images', () => generate(stack, key, IMAGE));
  expect(res.status).toBe(200);
  const body = (await res.json()) as { data: Array<{ url: string }> };
  expect((await fetch(body.data[0]!.url)).status).toBe(200);
  expect((await stack.simStats()).requests.images - before).toBe(1);
  expect([...(await settlementsPerJob(stack, accountId)).values()]).toEqual([1]);
}, 60_000);
