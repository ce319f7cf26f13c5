import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createBlobStore, FRESH_MAX_BYTES, redisConnectionOptions } from '@relay/core';
import { sweepPrefix } from '@relay/worker';
import { bullPrefix, parseFileId } from '@relay/jobs';
import { imageDimensions, renderImage } from '@relay/simulator';
import { answerFileReads } from './answer-file-reads.js';
import { postJson, startStack, type Stack } from './stack.js';

let stack: Stack;
let key: string;
beforeAll(async () => {
  stack = await startStack();
  ({ key } = await stack.newKey());
}, 60_000);
afterAll(async () => stack?.close());

const generate = (body: Record<string, unknown>) => postJson(`${stack.url}/v1/images/generations`, body, key);

interface ImagesBody {
  created: number;
  data: Array<{ url: string; b64_json?: string; size: string; revised_prompt: string; content_filter_results: unknown }>;
  usage: { generated_images: number; output_tokens: number };
  failed?: Array<{ index: number; code: string }>;
}

async function fetchBytes(url: string) {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

const MODELS: Array<[string, Record<string, unknown>, string]> = [
  ['vendor-gen-3-0-t2i-250415', { size: '2048x2048', seed: 42, guidance_scale: 3 }, '2048x2048'],
  ['vendor-edit-3-0-i2i-250628', { image: 'PLACEHOLDER' }, '1280x960'],
  ['vendor-gen-5-0-260128', { size: '3K', output_format: 'png' }, '3072x3072'],
  ['vendor-gen-4-5-251128', { size: '2304x1728' }, '2304x1728'],
  ['vendor-gen-4-0-250828', {}, '2048x2048'],
  // 3K shrinks into 5.0 pro's 2K tier; 5.5 takes a 16:9 2K size as it is
  ['vendor-gen-5-0-pro-260628', { size: '3K', output_format: 'png' }, '2048x2048'],
  ['vendor-gen-5-5-261028', { size: '2560x1440', output_format: 'png' }, '2560x1440'],
];

describe('each model end to end (url responses)', () => {
  test.each(MODELS)('%s', async (model, extra, expectedSize) => {
    const body: Record<string, unknown> = { model, prompt: 'a lighthouse at dusk', ...extra };
    if (body.image === 'PLACEHOLDER') {
      // a real 1280x960 input image: the edit model's output follows it
      const input = renderImage({ width: 1280, height: 960, format: 'png', watermark: false, hue: 3 });
      body.image = `data:image/png;base64,${input.toString('base64')}`;
    }
    const res = await generate(body);
    const answer = (await res.json()) as ImagesBody;
    expect(res.status, JSON.stringify(answer)).toBe(200);
    expect(answer.data).toHaveLength(1);
    const [entry] = answer.data;
    expect(entry!.size).toBe(expectedSize);
    expect(entry!.url).toMatch(new RegExp(`^${stack.url}/files/img_[0-9a-f]{32}-0\\.(jpeg|png)$`));
    expect(entry!.revised_prompt).toBe('a lighthouse at dusk');
    expect(answer.usage.generated_images).toBe(1);
    // `created` is the upstream's: within the call that served it, by the simulator's own log
    const call = (await stack.simCalls()).at(-1)!;
    expect(answer.created).toBeGreaterThanOrEqual(Math.floor(call.startedAt / 1000));
    expect(answer.created).toBeLessThanOrEqual(Math.floor(call.endedAt / 1000));

    const file = await fetchBytes(entry!.url);
    const [w, h] = expectedSize.split('x').map(Number);
    expect(imageDimensions(file)).toEqual({ width: w, height: h });
    expect(file.subarray(0, 4).toString('hex')).toBe(extra.output_format === 'png' ? '89504e47' : 'ffd8ffe0');
  });
});

test('5.5 with a transparent background: the stored file is a PNG with an alpha channel', async () => {
  const res = await generate({ model: 'vendor-gen-5-5-261028', prompt: 'a mug on nothing', background: 'transparent' });
  const answer = (await res.json()) as ImagesBody;
  expect(res.status, JSON.stringify(answer)).toBe(200);
  expect(answer.data[0]!.url).toMatch(/\.png$/);
  const file = await fetchBytes(answer.data[0]!.url);
  expect(file.subarray(0, 4).toString('hex')).toBe('89504e47');
  expect(file[25]).toBe(6); // IHDR colour type 6: RGBA
});

test('a relay link is a 302 to a short-lived presigned URL of the store', async () => {
  const res = await generate({ model: 'vendor-gen-4-0-250828', prompt: 'a quiet harbour' });
  const { data } = (await res.json()) as ImagesBody;
  const redirect = await fetch(data[0]!.url, { redirect: 'manual' });
  expect(redirect.status).toBe(302);
  const location = redirect.headers.get('location')!;
  expect(location.startsWith(stack.env.S3_ENDPOINT!)).toBe(true);
  expect(location).toMatch(/X-Amz-Expires=300/);
  expect((await fetch(`${stack.url}/files/img_${'0'.repeat(32)}-0.jpeg`)).status).toBe(404);
  expect((await fetch(`${stack.url}/files/../../etc/passwd`)).status).toBe(404);
});

test('once retention deleted a file its relay link answers 404, in the OpenAI dialect', async () => {
  const res = await generate({ model: 'vendor-gen-4-0-250828', prompt: 'a harbour that will be forgotten' });
  const { data } = (await res.json()) as ImagesBody;
  expect((await fetch(data[0]!.url, { redirect: 'manual' })).status).toBe(302);
  // the sweep as it runs RETENTION_DAYS later (this stack's bucket is its own)
  expect(
    await sweepPrefix(createBlobStore({ ...stack.s3.env, S3_FORCE_PATH_STYLE: true }), 'files/', new Date(Date.now() + 60_000)),
  ).toBeGreaterThan(0);
  const gone = await fetch(data[0]!.url, { redirect: 'manual' });
  expect(gone.status).toBe(404);
  expect(((await gone.json()) as { error: { message: string } }).error.message).toMatch(/retention period/);
});

test('b64_json carries the stored file, the same bytes the link serves, handed over by its worker when small enough', async () => {
  const before = await answerFileReads(stack.url);
  const res = await generate({ model: 'vendor-gen-5-0-260128', prompt: 'a paper boat', response_format: 'b64_json', n: 2 });
  const answer = (await res.json()) as ImagesBody;
  expect(res.status).toBe(200);
  const inline = answer.data.map((image) => Buffer.from(image.b64_json!, 'base64'));
  expect(inline.map(imageDimensions)).toEqual([
    { width: 2048, height: 2048 },
    { width: 2048, height: 2048 },
  ]);
  for (const [i, bytes] of inline.entries()) expect(bytes.equals(await fetchBytes(answer.data[i]!.url))).toBe(true);
  // published to this api with the charge when at most FRESH_MAX_BYTES, else read back from the store
  const after = await answerFileReads(stack.url);
  const small = inline.filter((bytes) => bytes.length <= FRESH_MAX_BYTES).length;
  expect({ fresh: after.fresh - before.fresh, store: after.store - before.store }).toEqual({ fresh: small, store: 2 - small });
});

test('a sequential set returns every delivered image and names the failed slot', async () => {
  await stack.fault({ type: 'image-error', api: 'images', index: 1, code: 'OutputImageSensitiveContentDetected' });
  const res = await generate({
    model: 'vendor-gen-4-5-251128',
    prompt: 'a comic strip in 3 images',
    sequential_image_generation: 'auto',
    sequential_image_generation_options: { max_images: 5 },
  });
  const answer = (await res.json()) as ImagesBody;
  expect(res.status).toBe(200);
  expect(answer.data).toHaveLength(2);
  expect(answer.data.map((d) => parseFileId(d.url.split('/files/')[1]!)!.index)).toEqual([0, 2]);
  expect(answer.failed).toEqual([expect.objectContaining({ index: 1, code: 'OutputImageSensitiveContentDetected' })]);
  expect(answer.usage.generated_images).toBe(2);
  for (const entry of answer.data) expect(imageDimensions(await fetchBytes(entry.url))).toEqual({ width: 2048, height: 2048 });
});

test('base64 inputs go to the store first: the job in Redis holds a key, never the blob', async () => {
  const input = renderImage({ width: 640, height: 480, format: 'jpeg', watermark: false, hue: 5 });
  const dataUri = `data:image/jpeg;base64,${input.toString('base64')}`;
  const res = await generate({ model: 'vendor-edit-3-0-i2i-250628', prompt: 'make it snow', image: [dataUri] });
  const answer = (await res.json()) as ImagesBody;
  expect(res.status).toBe(200);
  expect(answer.data[0]!.size).toBe('640x480');

  const jobId = parseFileId(answer.data[0]!.url.split('/files/')[1]!)!.jobId;
  const queue = new Queue('images', {
    connection: redisConnectionOptions(stack.redis.url, 'patient'),
    prefix: bullPrefix(stack.env.REDIS_PREFIX!),
  });
  try {
    const job = await queue.getJob(jobId);
    const raw = JSON.stringify(job!.data);
    expect(raw).not.toContain(input.toString('base64').slice(0, 200));
    expect(job!.data.request.image).toEqual([{ kind: 'stored', key: `inputs/${jobId}/0.jpeg`, mime: 'image/jpeg' }]);
  } finally {
    await queue.close();
  }
});

test('an input image whose bytes are not the declared format is refused before queueing', async () => {
  const res = await generate({ model: 'vendor-gen-4-0-250828', prompt: 'x', image: 'data:image/png;base64,aGVsbG8gd29ybGQ=' });
  expect(res.status).toBe(400);
  expect(await res.json()).toMatchObject({ error: { param: 'image', type: 'invalid_request_error' } });
});
