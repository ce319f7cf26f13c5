import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadSimulatorConfig } from './config.js';
import { renderImage } from './render/encode.js';
import { startSimulator, type RunningSimulator } from './server.js';

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator(loadSimulatorConfig({ SIM_PORT: '0', SIM_MAX_IPM: '0' }));
});
afterAll(async () => sim?.close());

const ark = (body: Record<string, unknown>) =>
  fetch(`${sim.url}/api/v3/images/generations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sim-key' },
    body: JSON.stringify(body),
  });

/** A small real PNG as a data URI. */
const ref = `data:image/png;base64,${renderImage({ width: 16, height: 16, format: 'png', watermark: false, hue: 0 }).toString('base64')}`;
const refs = (n: number) => Array<string>(n).fill(ref);

const refusal = async (res: Response) => {
  expect(res.status).toBe(400);
  expect(res.headers.get('x-error-code')).toBe('InvalidParameter');
  return ((await res.json()) as { error: { code: string; param: string; type: string } }).error;
};

describe('Seedream 4.x parameters', () => {
  test('optimize_prompt_options.mode: standard everywhere, fast on 4.0 only', async () => {
    for (const model of ['seedream-4-0-250828', 'seedream-4-5-251128', 'seedream-5-0-260128']) {
      expect((await ark({ model, prompt: 'x', optimize_prompt_options: { mode: 'standard' } })).status).toBe(200);
    }
    expect((await ark({ model: 'seedream-4-0-250828', prompt: 'x', optimize_prompt_options: { mode: 'fast' } })).status).toBe(200);
    for (const model of ['seedream-4-5-251128', 'seedream-5-0-260128']) {
      const error = await refusal(await ark({ model, prompt: 'x', optimize_prompt_options: { mode: 'fast' } }));
      expect(error).toMatchObject({ code: 'InvalidParameter', param: 'optimize_prompt_options.mode', type: 'BadRequest' });
    }
  });

  test('optimize_prompt_options: an unknown mode or a non-object is refused by name', async () => {
    const model = 'seedream-4-0-250828';
    expect(await refusal(await ark({ model, prompt: 'x', optimize_prompt_options: { mode: 'turbo' } }))).toMatchObject({
      param: 'optimize_prompt_options.mode',
    });
    expect(await refusal(await ark({ model, prompt: 'x', optimize_prompt_options: 'fast' }))).toMatchObject({
      param: 'optimize_prompt_options',
    });
  });

  test('up to 14 reference images; the 15th is refused', async () => {
    expect((await ark({ model: 'seedream-4-5-251128', prompt: 'x', image: refs(14) })).status).toBe(200);
    const error = await refusal(await ark({ model: 'seedream-4-5-251128', prompt: 'x', image: refs(15) }));
    expect(error).toMatchObject({ code: 'InvalidParameter', param: 'image' });
  });

  test('references + max_images <= 15; an unset max_images leaves room for the references', async () => {
    const auto = { model: 'seedream-4-0-250828', prompt: 'in 15 images', sequential_image_generation: 'auto' };
    const over = await ark({ ...auto, image: refs(3), sequential_image_generation_options: { max_images: 13 } });
    expect(await refusal(over)).toMatchObject({ param: 'sequential_image_generation_options.max_images' });
    const fits = await ark({ ...auto, image: refs(3), sequential_image_generation_options: { max_images: 12 } });
    expect(((await fits.json()) as { data: unknown[] }).data).toHaveLength(12);
    const unset = await ark({ ...auto, image: refs(1) });
    expect(((await unset.json()) as { data: unknown[] }).data).toHaveLength(14);
  });

  test('the call log names the model and the hash of every reference image, read or downloaded', async () => {
    const other = renderImage({ width: 16, height: 16, format: 'png', watermark: false, hue: 5 });
    const link = sim.ctx.links.sign('ref.png', { width: 16, height: 16, format: 'png', watermark: false, hue: 5 });
    expect((await ark({ model: 'seedream-4-0-250828', prompt: 'x', image: [ref, link] })).status).toBe(200);
    const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
    const { calls } = (await (await fetch(`${sim.url}/_sim/calls`)).json()) as { calls: Array<Record<string, unknown>> };
    expect(calls.at(-1)).toMatchObject({
      api: 'images',
      model: 'seedream-4-0-250828',
      inputs: [sha(Buffer.from(ref.split(',')[1]!, 'base64')), sha(other)],
    });
  });
});
