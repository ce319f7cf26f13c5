import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest';
import { loadCatalog } from '@relay/core';
import { createDoors } from '@relay/jobs';
import { imageDimensions, renderImage } from '@relay/simulator';
import { client as clientOf, jsonl, lines, until, upload } from './batch-helpers.js';
import { startStack, type Stack } from './stack.js';

/** Edits as a batch endpoint, as the openai SDK drives it: JSON lines with images[].image_url, output lines with links. */
let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 60_000);
afterAll(() => stack?.close());
beforeEach(async () => {
  await fetch(`${stack.sim.url}/_sim/reset`, { method: 'POST' });
});

const png = (hue: number) => renderImage({ width: 64, height: 48, format: 'png', watermark: false, hue });
const dataUri = (bytes: Buffer) => `data:image/png;base64,${bytes.toString('base64')}`;
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

test('an edits batch: each line edits its images, output lines link the results, b64_json and mask refused per line, charged per image', async () => {
  const { openai, accountId } = await clientOf(stack);
  const before = await stack.account(accountId);
  const [one, two] = [png(1), png(6)];
  const file = await upload(
    openai,
    jsonl('/v1/images/edits', [
      {
        custom_id: 'postcard',
        body: {
          model: 'vendor-gen-4-0-250828',
          prompt: 'both in one postcard',
          images: [{ image_url: dataUri(one) }, { image_url: dataUri(two) }],
        },
      },
      {
        custom_id: 'retouch',
        body: { model: 'vendor-edit-3-0-i2i-250628', prompt: 'warmer light', images: [{ image_url: dataUri(one) }] },
      },
      {
        custom_id: 'inline',
        body: { model: 'vendor-gen-4-0-250828', prompt: 'x', images: [{ image_url: dataUri(one) }], response_format: 'b64_json' },
      },
      { custom_id: 'masked', body: { model: 'vendor-gen-4-0-250828', prompt: 'x', images: [{ image_url: dataUri(one) }], mask: 'm' } },
    ]),
  );
  const created = await openai.batches.create({
    input_file_id: file.id,
    endpoint: '/v1/images/edits',
    completion_window: '24h',
  });
  const batch = await until(openai, created.id);
  expect(batch).toMatchObject({ status: 'completed', request_counts: { total: 4, completed: 2, failed: 2 } });

  const output = Object.fromEntries((await lines(openai, batch.output_file_id)).map((l) => [l.custom_id, l.response!.body]));
  expect(Object.keys(output).sort()).toEqual(['postcard', 'retouch']);
  for (const body of Object.values(output)) {
    const data = (body as { data: Array<{ url?: string; b64_json?: string }> }).data;
    expect(data).toHaveLength(1);
    expect(data[0]!.b64_json).toBeUndefined();
    const image = Buffer.from(await (await fetch(data[0]!.url!)).arrayBuffer());
    expect(imageDimensions(image)?.width).toBeGreaterThan(0);
  }
  // the edit model's output follows its input (adaptive)
  expect((output.retouch as { data: Array<{ size: string }> }).data[0]!.size).toBe('64x48');

  const refused = Object.fromEntries((await lines(openai, batch.error_file_id)).map((l) => [l.custom_id, l.response]));
  expect(refused).toMatchObject({
    inline: { status_code: 400, body: { error: { param: 'response_format' } } },
    masked: { status_code: 400, body: { error: { param: 'mask' } } },
  });

  // both references of the postcard reached the upstream, the retouch's one
  const inputs = (await stack.simCalls()).map((call) => call.inputs);
  expect(inputs).toHaveLength(2);
  expect(inputs).toEqual(expect.arrayContaining([[sha(one), sha(two)], [sha(one)]]));
  const after = await stack.account(accountId);
  expect(before.balance - after.balance).toBe(2 * 30_000);
  expect(after.reserved).toBe(0);
});

test('an unknown endpoint is a 400 naming every endpoint a batch takes, as the registry lists them', async () => {
  const { openai } = await clientOf(stack);
  const file = await upload(openai, jsonl('/v1/embeddings', [{ custom_id: 'a', body: {} }]));
  const refusal = openai.batches.create({ input_file_id: file.id, endpoint: '/v1/embeddings', completion_window: '24h' });
  await expect(refusal).rejects.toMatchObject({ status: 400, error: { param: 'endpoint' } });
  const message = ((await refusal.catch((error: unknown) => error)) as { error: { message: string } }).error.message;
  const endpoints = createDoors(loadCatalog({})).batchEndpoints;
  expect(endpoints).toEqual(
    expect.arrayContaining([
      '/v1/images/generations',
      '/v1/images/edits',
      '/v1/audio/speech',
      '/v1beta/models/vendor-2.5-flash-preview-tts:generateContent',
    ]),
  );
  for (const endpoint of endpoints) expect(message).toContain(endpoint);
});
