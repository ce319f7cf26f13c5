import { afterAll, beforeAll, expect, test } from 'vitest';
import { waitFor } from '@relay/testkit';
import { postJson, startStack, type Stack } from './stack.js';

/** GET /v1/jobs/{id} is polled: it has a rate-limit bucket of its own and never rebuilds a finished answer. */
let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ ownS3: true, tuning: { api: { rateLimitPerMinute: 600, jobReadRateMultiplier: 10 } } });
}, 60_000);
afterAll(async () => stack?.close());

const SET = {
  model: 'vendor-gen-4-0-250828',
  prompt: '3 images of a lighthouse',
  sequential_image_generation: 'auto',
  response_format: 'b64_json',
};
const read = (id: string, key: string) => fetch(`${stack.url}/v1/jobs/${id}`, { headers: { authorization: `Bearer ${key}` } });

async function finishedJob(key: string) {
  const accepted = await postJson(`${stack.url}/v1/images/generations`, SET, key, { Prefer: 'respond-async' });
  expect(accepted.status).toBe(202);
  const { id } = (await accepted.json()) as { id: string };
  const first = await waitFor(
    async () => {
      const res = await read(id, key);
      return res.status === 200 ? res : undefined;
    },
    30_000,
    'the job',
  );
  return { id, first: await first.text() };
}

test('a key limited to 1 request a minute may read 10 times a minute, in a bucket of its own', async () => {
  const { key } = await stack.newKey({ rateLimitPerMinute: 1 });
  const accepted = await postJson(`${stack.url}/v1/images/generations`, { ...SET, response_format: 'url' }, key, {
    Prefer: 'respond-async',
  });
  expect(accepted.status).toBe(202);
  const { id } = (await accepted.json()) as { id: string };
  // the request bucket is spent; reads still go through
  expect((await postJson(`${stack.url}/v1/images/generations`, SET, key)).status).toBe(429);
  const statuses = [];
  for (let i = 0; i < 10; i++) statuses.push((await read(id, key)).status);
  expect(statuses.every((s) => s === 200 || s === 202)).toBe(true);
  const limited = await read(id, key);
  expect(limited.status).toBe(429);
  expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(await limited.json()).toMatchObject({
    error: { type: 'rate_limit_error', message: expect.stringMatching(/10 reads per minute/) },
  });
});

test('a finished b64_json answer is built once: later reads need neither the store nor a rebuild', async () => {
  const { key } = await stack.newKey();
  const { id, first } = await finishedJob(key);
  expect((JSON.parse(first) as { data: Array<{ b64_json: string }> }).data[0]!.b64_json.length).toBeGreaterThan(1_000);
  await stack.s3.stop();
  try {
    for (let i = 0; i < 5; i++) {
      const again = await read(id, key);
      expect(again.status).toBe(200);
      expect(await again.text()).toBe(first);
    }
    // the cache is no way around ownership
    const other = await stack.newKey();
    expect((await read(id, other.key)).status).toBe(404);
  } finally {
    await stack.s3.start!();
  }
});
