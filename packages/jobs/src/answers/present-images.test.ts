import { describe, expect, test } from 'vitest';
import { loadCatalog } from '@relay/core';
import { imageHold } from '../admission.js';
import type { ImageJobResult, StoredFile } from '../images/job.js';
import { imageRequestSchema } from '../images/request.js';
import { presentImages } from './present-images.js';

const file = (index: number, extra: Partial<StoredFile> = {}): StoredFile => ({
  index,
  fileId: `img_${'a'.repeat(32)}-${index}.png`,
  size: '2048x2048',
  bytes: 10,
  contentType: 'image/png',
  ...extra,
});

const layer = (z: number) => ({
  z_index: z,
  bounding_box: { absolute: [0, 0, 1024, 1024], normalized: [0, 0, 500, 500] },
  name: `layer ${z}`,
});

const result = (images: StoredFile[]): ImageJobResult => ({
  created: 1,
  upstreamModel: 'm',
  images,
  failed: [],
  usage: { generated_images: images.length, output_tokens: 0, total_tokens: 0 },
});

describe('presentImages with layers', () => {
  test('each picture is one data entry; the layers stored after it are under its layers, with their own links', async () => {
    const images = [file(0), file(1, { size: '1024x1024', layer: layer(1) }), file(2, { size: '1024x1024', layer: layer(2) })];
    const answer = await presentImages(result(images), { prompt: 'p' }, 'http://relay');
    expect(answer.data).toHaveLength(1);
    expect(answer.data[0]).toMatchObject({ url: `http://relay/files/${images[0]!.fileId}`, size: '2048x2048' });
    expect(answer.data[0]!.layers).toEqual([
      { url: `http://relay/files/${images[1]!.fileId}`, size: '1024x1024', ...layer(1) },
      { url: `http://relay/files/${images[2]!.fileId}`, size: '1024x1024', ...layer(2) },
    ]);
    expect(answer).toMatchObject({ output_format: 'png', usage: { generated_images: 3 } });
  });

  test('an answer without layers has no layers field', async () => {
    const answer = await presentImages(result([file(0), file(1)]), { prompt: 'p' }, 'http://relay');
    expect(answer.data.map((entry) => 'layers' in entry)).toEqual([false, false]);
  });
});

describe('the reservation of a layered request', () => {
  test("the base image and every layer the model may return: 1 + maxLayers images at the model's price", () => {
    const models = loadCatalog({}).imageModels;
    const pro = models['vendor-gen-5-0-pro-260628']!;
    const request = imageRequestSchema(models).parse({
      model: 'vendor-gen-5-0-pro-260628',
      prompt: 'p',
      image: 'https://in.example/1.png',
      layer_decomposition: true,
    });
    expect(imageHold(pro, request).reservation).toMatchObject({ amount: 17 * pro.price, units: '17 images' });
  });
});
