import { inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadSimulatorConfig } from './config.js';
import { renderImage } from './render/encode.js';
import { startSimulator, type RunningSimulator } from './server.js';

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator(loadSimulatorConfig({ SIM_PORT: '0', SIM_MAX_IPM: '0', SIM_LATENCY_MS: '0' }));
});
afterAll(async () => sim?.close());

const ark = (body: unknown) =>
  fetch(`${sim.url}/api/v3/images/generations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sim-key' },
    body: JSON.stringify(body),
  });

const PRO = 'dola-seedream-5-0-pro-260628';
const V55 = 'seedream-5-5-261028';
const ref = `data:image/png;base64,${renderImage({ width: 16, height: 16, format: 'png', watermark: false, hue: 0 }).toString('base64')}`;

/** A PNG's colour type (6: RGBA) and the alpha of its first pixel (its corner), read from the unfiltered rows the simulator writes. */
function pngAlpha(file: Buffer): { colourType: number; corner: number | undefined } {
  const colourType = file[25]!;
  const idat = file.indexOf('IDAT');
  const length = file.readUInt32BE(idat - 4);
  const raw = inflateSync(file.subarray(idat + 4, idat + 4 + length));
  return { colourType, corner: colourType === 6 ? raw[1 + 3] : undefined };
}

describe('Seedream 5.0 pro and 5.5', () => {
  test('5.5 answers PNG by default and says its background', async () => {
    const res = await ark({ model: V55, prompt: 'a mug', size: '2K', response_format: 'b64_json' });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: Array<{ b64_json: string; output_format: string; background: string }> };
    expect(body.data[0]).toMatchObject({ output_format: 'png', background: 'opaque' });
    expect(pngAlpha(Buffer.from(body.data[0]!.b64_json, 'base64')).colourType).toBe(2);
  });

  test('background transparent: a PNG whose corners are transparent, by link as by b64_json', async () => {
    const res = await ark({ model: V55, prompt: 'a mug', size: '1K', background: 'transparent' });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: Array<{ url: string; background: string }> };
    expect(body.data[0]!.background).toBe('transparent');
    const file = Buffer.from(await (await fetch(body.data[0]!.url)).arrayBuffer());
    expect(pngAlpha(file)).toEqual({ colourType: 6, corner: 0 });
  });

  test('5.0 pro makes a transparent background from an input image, and the dola- 5.5 name resolves', async () => {
    expect((await ark({ model: PRO, prompt: 'cut out', image: ref, background: 'transparent' })).status).toBe(200);
    expect((await ark({ model: 'dola-seedream-5-5-261028', prompt: 'x' })).status).toBe(200);
  });

  test('5.0 pro splits its input image into a base image and layers, each described as the volcengine SDK reads it', async () => {
    const res = await ark({
      model: PRO,
      prompt: 'split the poster into 2 layers',
      image: ref,
      size: '2048x2048',
      layer_decomposition: true,
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: Array<Record<string, unknown> & { url: string }>; usage: { generated_images: number } };
    expect(body.data).toHaveLength(3);
    expect(body.data[0]).toMatchObject({ size: '2048x2048', output_format: 'png' });
    expect(body.data[0]).not.toHaveProperty('z_index');
    expect(body.data.slice(1)).toEqual([
      expect.objectContaining({
        size: '1024x1024',
        output_format: 'png',
        z_index: 1,
        bounding_box: { absolute: [0, 0, 1024, 1024], normalized: [0, 0, 500, 500] },
        name: 'background',
        description: expect.any(String),
      }),
      expect.objectContaining({ z_index: 2, bounding_box: { absolute: [1024, 1024, 2048, 2048], normalized: [500, 500, 1000, 1000] } }),
    ]);
    expect(body.usage.generated_images).toBe(3);
    const layer = Buffer.from(await (await fetch(body.data[1]!.url)).arrayBuffer());
    expect(pngAlpha(layer).colourType).toBe(6);
  });

  test.each([
    [{ model: PRO, prompt: 'x', background: 'transparent' }, 'background'],
    [{ model: V55, prompt: 'x', background: 'transparent', output_format: 'jpeg' }, 'background'],
    [{ model: V55, prompt: 'x', background: 'transparent', layer_decomposition: true, image: ref }, 'background'],
    [{ model: V55, prompt: 'x', background: 'see-through' }, 'background'],
    [{ model: 'seedream-4-5-251128', prompt: 'x', background: 'auto' }, 'background'],
    [{ model: V55, prompt: 'x', sequential_image_generation: 'auto' }, 'sequential_image_generation'],
    [{ model: V55, prompt: 'x', stream: true }, 'stream'],
    [{ model: V55, prompt: 'x', optimize_prompt_options: { mode: 'fast' } }, 'optimize_prompt_options.mode'],
    [{ model: PRO, prompt: 'x', image: Array(11).fill(ref) }, 'image'],
    [{ model: V55, prompt: 'x', size: '3K' }, 'size'],
    [{ model: V55, prompt: 'x', size: '3072x3072' }, 'size'],
    [{ model: V55, prompt: 'x', layer_decomposition: true, image: ref }, 'layer_decomposition'],
    [{ model: PRO, prompt: 'x', layer_decomposition: true }, 'layer_decomposition'],
    [{ model: PRO, prompt: 'x', layer_decomposition: true, image: [ref, ref] }, 'layer_decomposition'],
    [{ model: PRO, prompt: 'x', layer_decomposition: 'yes', image: ref }, 'layer_decomposition'],
  ])('refusal %#: 400 naming %s, in the vendor error shape', async (body, param) => {
    const res = await ark(body);
    expect(res.status).toBe(400);
    const error = ((await res.json()) as { error: { param: string; code: string; type: string } }).error;
    expect(error).toMatchObject({ param, code: expect.stringMatching(/^InvalidParameter/), type: 'BadRequest' });
  });
});
