import { describe, expect, test } from 'vitest';
import { loadCatalog } from '@relay/core';
import { deliveredOrThrow, neutralSlot, toolsOf, webSearchesOf } from './adapter.js';
import { readArkAnswer } from './answer.js';
import { arkRequestOf } from './request.js';

describe('an Ark answer as the neutral set', () => {
  test('an answer with an image is the set; one without is a refusal when moderated, else worth another call', () => {
    const one = {
      model: 'm',
      created: 1,
      data: [{ error: { code: 'InternalServiceError', message: 'x' } }, { url: 'https://x/1', size: '' }],
    };
    expect(deliveredOrThrow(one)).toBe(one);
    const moderated = { model: 'm', created: 1, data: [{ error: { code: 'OutputImageSensitiveContentDetected', message: 'no' } }] };
    expect(() => deliveredOrThrow(moderated)).toThrow(
      expect.objectContaining({
        kind: 'refused',
        details: expect.objectContaining({ moderation: true, code: 'OutputImageSensitiveContentDetected' }),
      }),
    );
    const stopped = { model: 'm', created: 1, data: [{ error: { code: 'InternalServiceError', message: 'x' } }] };
    expect(() => deliveredOrThrow(stopped)).toThrow(
      expect.objectContaining({ kind: 'transient', message: 'no image delivered: InternalServiceError' }),
    );
  });
});

test('the web searches Ark counted: a count it did not give, or gave wrong, is none', () => {
  expect([{ web_search: 3 }, { web_search: 0 }, {}, { web_search: '1' }, { web_search: -1 }, undefined].map(webSearchesOf)).toEqual([
    3,
    0,
    undefined,
    undefined,
    undefined,
    undefined,
  ]);
});

describe('layers (layer_decomposition)', () => {
  test("a slot with a z_index is a layer: the vendor's description kept under layer, the base image as it was", () => {
    const answer = readArkAnswer(
      {
        data: [
          { url: 'https://x/0', size: '2048x2048', output_format: 'png' },
          {
            url: 'https://x/1',
            size: '1024x1024',
            z_index: 1,
            bounding_box: { absolute: [0, 0, 1024, 1024], normalized: [0, 0, 500, 500] },
            name: 'sky',
            description: 'the sky',
          },
          { url: 'https://x/2', size: '512x512', z_index: 2, bounding_box: 'nonsense' },
        ],
      },
      'dola-seedream-5-0-pro-260628',
    );
    expect(answer.data.map(neutralSlot)).toEqual([
      { url: 'https://x/0', size: '2048x2048' },
      {
        url: 'https://x/1',
        size: '1024x1024',
        layer: {
          z_index: 1,
          bounding_box: { absolute: [0, 0, 1024, 1024], normalized: [0, 0, 500, 500] },
          name: 'sky',
          description: 'the sky',
        },
      },
      // a field of the wrong type reads as absent: the layer is still a delivered image
      { url: 'https://x/2', size: '512x512', layer: { z_index: 2 } },
    ]);
  });

  test('sent to the models that split images, when asked', () => {
    const catalog = loadCatalog({}).imageModels;
    const id = 'vendor-gen-5-0-pro-260628';
    const request = { model: id, prompt: 'split', image: [], layer_decomposition: true };
    const body = arkRequestOf({ request, model: catalog[id]!, vendorModel: 'dola-seedream-5-0-pro-260628', inputs: ['https://in/1.png'] });
    expect(body).toMatchObject({ layer_decomposition: true, image: 'https://in/1.png' });
    const plain = arkRequestOf({ request: { ...request, layer_decomposition: false }, model: catalog[id]!, vendorModel: 'v', inputs: [] });
    expect(plain).not.toHaveProperty('layer_decomposition');
  });
});

describe("Ark's body for a call", () => {
  const model = loadCatalog({}).imageModels['vendor-gen-4-5-251128']!;
  const request = { model: 'vendor-gen-4-5-251128', prompt: 'a kite', image: [], sequential_image_generation: 'auto' as const, n: 1 };

  test('the vendor model of the channel, the inputs as the vendor reads them, results always as links', () => {
    const body = arkRequestOf({ request, model, vendorModel: 'seedream-4-5-251128', inputs: ['https://in/1.png'] });
    expect(body).toMatchObject({ model: 'seedream-4-5-251128', prompt: 'a kite', image: 'https://in/1.png', response_format: 'url' });
    expect(body.sequential_image_generation).toBe('auto');
  });
});

describe("Ark's output fields", () => {
  const catalog = loadCatalog({}).imageModels;
  const call = (id: string, extra: Record<string, unknown>) =>
    arkRequestOf({ request: { model: id, prompt: 'a mug', image: [], ...extra }, model: catalog[id]!, vendorModel: 'v', inputs: [] });

  test('5.5 makes PNG unless asked otherwise, and takes the background', () => {
    expect(call('vendor-gen-5-5-261028', {})).toMatchObject({ output_format: 'png' });
    expect(call('vendor-gen-5-5-261028', { output_format: 'jpeg' })).toMatchObject({ output_format: 'jpeg' });
    expect(call('vendor-gen-5-5-261028', { background: 'transparent' })).toMatchObject({ background: 'transparent', output_format: 'png' });
  });

  test('5.0 lite keeps JPEG by default, a transparent background asks PNG; JPEG-only models are sent neither field', () => {
    expect(call('vendor-gen-5-0-260128', {})).toMatchObject({ output_format: 'jpeg' });
    const jpegOnly = call('vendor-gen-4-5-251128', { output_format: 'jpeg', background: 'opaque' });
    expect(jpegOnly.output_format).toBeUndefined();
    expect(jpegOnly.background).toBeUndefined();
  });
});

test("what Ark says of the tools it ran (5.0 lite's web search) is kept as it said it, or nothing", () => {
  expect(toolsOf([{ type: 'web_search' }], { web_search: 1 })).toEqual({ tools: [{ type: 'web_search' }], tool_usage: { web_search: 1 } });
  expect(toolsOf(undefined, { web_search: 2 })).toEqual({ tool_usage: { web_search: 2 } });
  expect(toolsOf(undefined, undefined)).toBeUndefined();
});
