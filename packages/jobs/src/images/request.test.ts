import { describe, expect, test } from 'vitest';
import { verdict } from '../testing/verdict.js';
import { loadCatalog } from '@relay/core';
import { endUserOf } from './openai-fields.js';
import { imageRequestSchema, maxImagesOf } from './request.js';

const schema = imageRequestSchema(loadCatalog({}).imageModels);

const T2I = 'vendor-gen-3-0-t2i-250415';
const EDIT = 'vendor-edit-3-0-i2i-250628';
const GEN = ['vendor-gen-5-0-260128', 'vendor-gen-4-5-251128', 'vendor-gen-4-0-250828'];
const ALL = [T2I, EDIT, ...GEN];
const PRO = 'vendor-gen-5-0-pro-260628';
const V55 = 'vendor-gen-5-5-261028';
/** The models that take the vendor's background (and make PNG by default). */
const DESIGN = [PRO, V55];
const URL_IMG = 'https://example.com/cat.png';
const PNG_1PX = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** A minimal valid body for each model (the edit model needs its one image). */
const base = (model: string) => ({ model, prompt: 'a red fox', ...(model === EDIT ? { image: URL_IMG } : {}) });

const check = (body: unknown) => verdict(schema, body);

type Case = [label: string, models: string[], extra: Record<string, unknown>, expected: string | null];

const cases: Case[] = [
  // model and prompt
  ['every model with defaults', ALL, {}, null],
  ['unknown model', ['vendor-gen-9-9'], {}, 'model'],
  ['empty prompt', ALL, { prompt: '' }, 'prompt'],
  ['blank prompt', ALL, { prompt: '   ' }, 'prompt'],
  ['non-string prompt', ALL, { prompt: 42 }, 'prompt'],
  ['prompt at 10000 chars', ALL, { prompt: 'a'.repeat(10_000) }, null],
  ['prompt at 10001 chars', ALL, { prompt: 'a'.repeat(10_001) }, 'prompt'],
  // image count per model
  ['t2i with an image', [T2I], { image: URL_IMG }, 'image'],
  ['edit without image', [EDIT], { image: undefined }, 'image'],
  ['edit with one image in an array', [EDIT], { image: [URL_IMG] }, null],
  ['edit with two images', [EDIT], { image: [URL_IMG, URL_IMG] }, 'image'],
  ['gen with one image', GEN, { image: URL_IMG }, null],
  ['gen with 14 images', GEN, { image: Array(14).fill(URL_IMG) }, null],
  ['gen with 15 images', GEN, { image: Array(15).fill(URL_IMG) }, 'image'],
  ['gen with an empty array', GEN, { image: [] }, 'image'],
  ['image neither string nor array', GEN, { image: 5 }, 'image'],
  // image forms
  ['http url', GEN, { image: 'http://example.com/a.jpg' }, null],
  ['ftp url', GEN, { image: 'ftp://example.com/a.jpg' }, 'image'],
  ['not a url', GEN, { image: 'cat.png' }, 'image'],
  ['data uri, lower case', [EDIT, ...GEN], { image: PNG_1PX }, null],
  ['data uri, upper case format', GEN, { image: PNG_1PX.replace('image/png', 'image/PNG') }, 'image'],
  ['data uri, unsupported format', GEN, { image: PNG_1PX.replace('image/png', 'image/svg+xml') }, 'image'],
  // the payload itself (base64, size, magic bytes) is checked when the api decodes it: input-image.test.ts, images.int.test.ts
  ['data uri, empty data', GEN, { image: 'data:image/png;base64,' }, 'image'],
  ['bad entry in an array is named by index', GEN, { image: [URL_IMG, 'nope'] }, 'image.1'],
  // size: keywords
  ['size 2K', ALL, { size: '2K' }, null],
  ['size 3K', ALL, { size: '3K' }, null],
  ['size 2k (lower case)', ALL, { size: '2k' }, 'size'],
  ['size 4K', ALL, { size: '4K' }, 'size'],
  ['keyword and pixels mixed', ALL, { size: '2K 2048x2048' }, 'size'],
  // size: pixels
  ['size 2048x2048', ALL, { size: '2048x2048' }, null],
  ['pixels at the minimum (1920x1920 = 3686400)', ALL, { size: '1920x1920' }, null],
  ['pixels just below the minimum (1919x1920)', ALL, { size: '1919x1920' }, 'size'],
  ['pixels 1 below the maximum (1935x5377 = 10404495)', ALL, { size: '1935x5377' }, null],
  ['pixels just above the maximum (1044x9966 = 10404504)', ALL, { size: '1044x9966' }, 'size'],
  ['3226x3226 above the maximum', ALL, { size: '3226x3226' }, 'size'],
  ['aspect ratio exactly 16 (7680x480)', ALL, { size: '7680x480' }, null],
  ['aspect ratio just above 16 (7681x480)', ALL, { size: '7681x480' }, 'size'],
  ['aspect ratio exactly 1/16 (480x7680)', ALL, { size: '480x7680' }, null],
  ['aspect ratio just below 1/16 (480x7681)', ALL, { size: '480x7681' }, 'size'],
  ['upper-case X', ALL, { size: '2048X2048' }, 'size'],
  ['half a size', ALL, { size: '2048x' }, 'size'],
  ['size as a number', ALL, { size: 2048 }, 'size'],
  // seed: 3.0 models only
  ['seed -1', [T2I, EDIT], { seed: -1 }, null],
  ['seed 2147483647', [T2I, EDIT], { seed: 2147483647 }, null],
  ['seed -2', [T2I, EDIT], { seed: -2 }, 'seed'],
  ['seed 2147483648', [T2I, EDIT], { seed: 2147483648 }, 'seed'],
  ['seed 1.5', [T2I, EDIT], { seed: 1.5 }, 'seed'],
  ['seed as a string', [T2I, EDIT], { seed: '7' }, 'seed'],
  ['seed on a generation model', GEN, { seed: 7 }, 'seed'],
  // guidance_scale: 3.0 models only
  ['guidance 1', [T2I, EDIT], { guidance_scale: 1 }, null],
  ['guidance 10', [T2I, EDIT], { guidance_scale: 10 }, null],
  ['guidance 0.99', [T2I, EDIT], { guidance_scale: 0.99 }, 'guidance_scale'],
  ['guidance 10.01', [T2I, EDIT], { guidance_scale: 10.01 }, 'guidance_scale'],
  ['guidance on a generation model', GEN, { guidance_scale: 5 }, 'guidance_scale'],
  // sequential generation: 5.0/4.5/4.0 only
  ['sequential auto', GEN, { sequential_image_generation: 'auto' }, null],
  ['sequential disabled', GEN, { sequential_image_generation: 'disabled' }, null],
  ['sequential "on"', GEN, { sequential_image_generation: 'on' }, 'sequential_image_generation'],
  ['sequential on a 3.0 model', [T2I, EDIT], { sequential_image_generation: 'auto' }, 'sequential_image_generation'],
  ['max_images 1', GEN, { sequential_image_generation: 'auto', sequential_image_generation_options: { max_images: 1 } }, null],
  ['max_images 15', GEN, { sequential_image_generation: 'auto', sequential_image_generation_options: { max_images: 15 } }, null],
  ['max_images 0', GEN, { sequential_image_generation_options: { max_images: 0 } }, 'sequential_image_generation_options.max_images'],
  ['max_images 16', GEN, { sequential_image_generation_options: { max_images: 16 } }, 'sequential_image_generation_options.max_images'],
  ['max_images 2.5', GEN, { sequential_image_generation_options: { max_images: 2.5 } }, 'sequential_image_generation_options.max_images'],
  ['unknown option', GEN, { sequential_image_generation_options: { max: 3 } }, 'sequential_image_generation_options.max'],
  [
    'options on a 3.0 model',
    [T2I, EDIT],
    { sequential_image_generation_options: { max_images: 2 } },
    'sequential_image_generation_options',
  ],
  [
    '1 image + max_images 14 = 15',
    GEN,
    { image: URL_IMG, sequential_image_generation: 'auto', sequential_image_generation_options: { max_images: 14 } },
    null,
  ],
  [
    '1 image + max_images 15 = 16',
    GEN,
    { image: URL_IMG, sequential_image_generation: 'auto', sequential_image_generation_options: { max_images: 15 } },
    'sequential_image_generation_options.max_images',
  ],
  // output_format: made by the models that make it, converted by the worker elsewhere (webp always)
  ['output_format png on 5.0', [GEN[0]!], { output_format: 'png' }, null],
  ['output_format jpeg on 5.0', [GEN[0]!], { output_format: 'jpeg' }, null],
  ['output_format webp (converted)', ALL, { output_format: 'webp' }, null],
  ['output_format gif (no model makes one)', ALL, { output_format: 'gif' }, 'output_format'],
  ['output_format png on JPEG-only models (converted)', [T2I, EDIT, GEN[1]!, GEN[2]!], { output_format: 'png' }, null],
  ['output_format jpeg on JPEG-only models (what they make)', [T2I, EDIT, GEN[1]!, GEN[2]!], { output_format: 'jpeg' }, null],
  ['output_format null (OpenAI: the default)', ALL, { output_format: null }, null],
  ['output_format png and jpeg on 5.0 pro and 5.5', DESIGN, { output_format: 'jpeg' }, null],
  // background: transparency on the models that make it, auto and opaque everywhere
  ['background auto', [...ALL, ...DESIGN], { background: 'auto' }, null],
  ['background opaque', [...ALL, ...DESIGN], { background: 'opaque' }, null],
  ['background transparent on a model without it', ALL, { background: 'transparent' }, 'background'],
  ['background transparent on 5.5 (PNG by default)', [V55], { background: 'transparent' }, null],
  ['background transparent on 5.0 pro from an image', [PRO], { background: 'transparent', image: URL_IMG }, null],
  ['background transparent on 5.0 pro without an image', [PRO], { background: 'transparent' }, 'background'],
  ['background transparent with jpeg', [V55], { background: 'transparent', output_format: 'jpeg' }, 'background'],
  ['background of another value', DESIGN, { background: 'clear' }, 'background'],
  // 5.0 pro and 5.5: up to 10 references; 5.5 makes no sets and has no fast mode
  ['10 references on 5.0 pro and 5.5', DESIGN, { image: Array(10).fill(URL_IMG) }, null],
  ['11 references on 5.0 pro and 5.5', DESIGN, { image: Array(11).fill(URL_IMG) }, 'image'],
  ['a set on 5.5', [V55], { sequential_image_generation: 'auto' }, 'sequential_image_generation'],
  ['fast prompt mode on 5.5', [V55], { optimize_prompt_options: { mode: 'fast' } }, 'optimize_prompt_options.mode'],
  // response_format and watermark
  ['response_format url', ALL, { response_format: 'url' }, null],
  ['response_format b64_json', ALL, { response_format: 'b64_json' }, null],
  ['response_format json', ALL, { response_format: 'json' }, 'response_format'],
  ['watermark false', ALL, { watermark: false }, null],
  ['watermark as a string', ALL, { watermark: 'false' }, 'watermark'],
  // OpenAI's own fields, as its clients send them
  ['n 1', ALL, { n: 1 }, null],
  ['n 10', ALL, { n: 10 }, null],
  ['n null (OpenAI: the default)', ALL, { n: null }, null],
  ['n 0', ALL, { n: 0 }, 'n'],
  ['n 11', ALL, { n: 11 }, 'n'],
  ['n 1.5', ALL, { n: 1.5 }, 'n'],
  ['n as a string', ALL, { n: '2' }, 'n'],
  [
    'n 3 x max_images 5 = 15',
    GEN,
    { n: 3, sequential_image_generation: 'auto', sequential_image_generation_options: { max_images: 5 } },
    null,
  ],
  [
    'n 2 x max_images 8 = 16',
    GEN,
    { n: 2, sequential_image_generation: 'auto', sequential_image_generation_options: { max_images: 8 } },
    'n',
  ],
  ['n 2 with auto and the default max_images', GEN, { n: 2, sequential_image_generation: 'auto' }, 'n'],
  ['n 10 with sequential disabled', GEN, { n: 10, sequential_image_generation: 'disabled' }, null],
  ['quality hd', ALL, { quality: 'hd' }, null],
  ['quality standard', ALL, { quality: 'standard' }, null],
  ['quality null', ALL, { quality: null }, null],
  ['quality ultra (OpenAI refuses it)', ALL, { quality: 'ultra' }, 'quality'],
  ['style vivid', ALL, { style: 'vivid' }, null],
  ['style natural', ALL, { style: 'natural' }, null],
  ['style cartoon', ALL, { style: 'cartoon' }, 'style'],
  ['user', ALL, { user: 'end-user-1' }, null],
  ['user of 256 chars', ALL, { user: 'u'.repeat(256) }, null],
  ['user of 257 chars', ALL, { user: 'u'.repeat(257) }, 'user'],
  ['user as a number', ALL, { user: 7 }, 'user'],
  ['safety_identifier of 64 chars', ALL, { safety_identifier: 's'.repeat(64) }, null],
  ['safety_identifier of 65 chars', ALL, { safety_identifier: 's'.repeat(65) }, 'safety_identifier'],
  // unknown fields are refused, not ignored
  ['moderation auto (the vendor moderates)', ALL, { moderation: 'auto' }, null],
  ['moderation low', ALL, { moderation: 'low' }, 'moderation'],
  // the vendor's web search: 5.0 lite only
  ['tools web_search on 5.0 lite', [GEN[0]!], { tools: [{ type: 'web_search' }] }, null],
  ['tools web_search elsewhere', [T2I, EDIT, GEN[1]!, GEN[2]!, PRO, V55], { tools: [{ type: 'web_search' }] }, 'tools'],
  ['tools of another type', [GEN[0]!], { tools: [{ type: 'code_interpreter' }] }, 'tools.0.type'],
  ['tools empty (asks nothing)', ALL, { tools: [] }, null],
  // layer_decomposition: 5.0 pro, one input image, one answer
  ['layer_decomposition from one image', [PRO], { layer_decomposition: true, image: URL_IMG }, null],
  ['layer_decomposition false (asks nothing)', ALL, { layer_decomposition: false }, null],
  ['layer_decomposition on a model without layers', [V55, ...GEN], { layer_decomposition: true, image: URL_IMG }, 'layer_decomposition'],
  ['layer_decomposition without an image', [PRO], { layer_decomposition: true }, 'layer_decomposition'],
  ['layer_decomposition from two images', [PRO], { layer_decomposition: true, image: [URL_IMG, URL_IMG] }, 'layer_decomposition'],
  ['layer_decomposition with n 2', [PRO], { layer_decomposition: true, image: URL_IMG, n: 2 }, 'layer_decomposition'],
  [
    'layer_decomposition in a set',
    [PRO],
    { layer_decomposition: true, image: URL_IMG, sequential_image_generation: 'auto' },
    'layer_decomposition',
  ],
  [
    'layer_decomposition with a transparent background',
    [PRO],
    { layer_decomposition: true, image: URL_IMG, background: 'transparent' },
    'background',
  ],
  ['layer_decomposition as a string', [PRO], { layer_decomposition: 'true', image: URL_IMG }, 'layer_decomposition'],
  // output_compression: jpeg and webp only, as at OpenAI
  ['output_compression on what the model makes as JPEG', ALL, { output_compression: 80 }, null],
  ['output_compression with webp', ALL, { output_format: 'webp', output_compression: 0 }, null],
  ['output_compression with png', ALL, { output_format: 'png', output_compression: 80 }, 'output_compression'],
  ['output_compression on a model whose default is PNG', DESIGN, { output_compression: 80 }, 'output_compression'],
  ['output_compression over 100', ALL, { output_format: 'jpeg', output_compression: 101 }, 'output_compression'],
  ['output_compression not an integer', ALL, { output_format: 'jpeg', output_compression: 50.5 }, 'output_compression'],
  ['background transparent with webp', [V55], { background: 'transparent', output_format: 'webp' }, null],
  ['output_compression null (OpenAI: the default)', ALL, { output_compression: null }, null],
  ['input_fidelity', ALL, { input_fidelity: 'high' }, 'input_fidelity'],
  ['typo in a field name', ALL, { watermarks: false }, 'watermarks'],
  // OpenAI's streaming fields: each image as it is made (models that cannot stream send theirs at the end)
  ['stream true', ALL, { stream: true }, null],
  ['stream with partial_images 2', ALL, { stream: true, partial_images: 2 }, null],
  ['partial_images over 3', ALL, { partial_images: 4 }, 'partial_images'],
  ['stream with n 2 (a stream is one call)', ALL, { stream: true, n: 2 }, 'n'],
  // the vendor's prompt optimisation, per model
  ['optimize_prompt_options standard', GEN, { optimize_prompt_options: { mode: 'standard' } }, null],
  ['optimize_prompt_options fast on 4.0', ['vendor-gen-4-0-250828'], { optimize_prompt_options: { mode: 'fast' } }, null],
  [
    'optimize_prompt_options fast on 4.5',
    ['vendor-gen-4-5-251128'],
    { optimize_prompt_options: { mode: 'fast' } },
    'optimize_prompt_options.mode',
  ],
  [
    'optimize_prompt_options on a 3.0 model',
    ['vendor-gen-3-0-t2i-250415'],
    { optimize_prompt_options: { mode: 'standard' } },
    'optimize_prompt_options.mode',
  ],
  ['optimize_prompt_options of another mode', GEN, { optimize_prompt_options: { mode: 'turbo' } }, 'optimize_prompt_options.mode'],
];

describe('image request rules', () => {
  for (const [label, models, extra, expected] of cases) {
    test.each(models)(`${label} (%s)`, (model) => {
      expect(check({ ...base(model), ...extra })).toBe(expected);
    });
  }

  test('model is required', () => {
    expect(check({ prompt: 'x' })).toBe('model');
  });

  test('a refusal names the models that take the field', () => {
    const result = schema.safeParse({ ...base(GEN[1]!), background: 'transparent' });
    expect(result.error?.issues[0]?.message).toBe(
      `vendor-gen-4-5-251128 cannot make a transparent background; background "transparent" is taken by ${PRO}, ${V55}`,
    );
  });
});

describe('endUserOf: what the usage entries name', () => {
  test('a non-empty safety_identifier wins over user, as at OpenAI', () => {
    expect(endUserOf({ user: 'u', safety_identifier: 's' })).toBe('s');
    expect(endUserOf({ user: 'u', safety_identifier: '' })).toBe('u');
    expect(endUserOf({ user: '' })).toBeUndefined();
  });
});

describe('maxImagesOf (the reservation basis)', () => {
  test('one image unless sequential is auto', () => {
    expect(maxImagesOf({}, 0)).toBe(1);
    expect(maxImagesOf({ sequential_image_generation: 'disabled', sequential_image_generation_options: { max_images: 9 } }, 0)).toBe(1);
  });
  test('auto: max_images, or what 15 leaves after the input images', () => {
    expect(maxImagesOf({ sequential_image_generation: 'auto', sequential_image_generation_options: { max_images: 4 } }, 2)).toBe(4);
    expect(maxImagesOf({ sequential_image_generation: 'auto' }, 0)).toBe(15);
    expect(maxImagesOf({ sequential_image_generation: 'auto' }, 3)).toBe(12);
  });
});

describe('errors name the nearest valid value', () => {
  const message = (body: Record<string, unknown>) => {
    const result = schema.safeParse({ prompt: 'a red fox', ...body });
    return result.success ? undefined : result.error.issues[0]?.message;
  };

  test('too few or too many pixels: the recommended size of the nearest aspect ratio', () => {
    expect(message({ model: GEN[0], size: '1024x1024' })).toBe(
      'size 1024x1024 has 1048576 pixels; total pixels must be within [3686400, 10404496]: try 2048x2048 (the recommended 2K size for 1:1) or the keyword 2K',
    );
    expect(message({ model: GEN[0], size: '1920x1080' })).toMatch(
      /: try 2848x1600 \(the recommended 2K size for 16:9\) or the keyword 2K$/,
    );
    expect(message({ model: GEN[0], size: '1024x1536' })).toMatch(/: try 1664x2496 \(the recommended 2K size for 2:3\)/);
    expect(message({ model: GEN[0], size: '4096x4096' })).toMatch(/: try 3072x3072 \(the recommended 3K size for 1:1\) or the keyword 3K$/);
    expect(message({ model: GEN[0], size: '7681x480' })).toMatch(
      /width\/height must be within \[1\/16, 16\]: try 3136x1344 \(the recommended 2K size for 21:9\)/,
    );
  });

  test('a keyword in lower case or pixels with a capital X: what was meant', () => {
    expect(message({ model: GEN[0], size: '2k' })).toBe('size "2k": the keywords are 2K and 3K, in capitals; did you mean "2K"?');
    expect(message({ model: GEN[0], size: '2048X2048' })).toBe(
      'size "2048X2048": write WIDTHxHEIGHT with a lower-case x and no spaces; did you mean "2048x2048"?',
    );
    expect(message({ model: GEN[0], size: '2K 2048x2048' })).toMatch(/, not both; got "2K 2048x2048"$/);
    expect(message({ model: GEN[0], size: '4K' })).toBe(
      'size must be a keyword (2K or 3K) or WIDTHxHEIGHT in pixels such as 2048x2048; got "4K"',
    );
  });

  test('an unknown model: the one it starts like, or the nearest id', () => {
    expect(message({ model: 'vendor-gen-5-0' })).toMatch(
      /^unknown model "vendor-gen-5-0"; did you mean "vendor-gen-5-0-260128"\? Available: /,
    );
    expect(message({ model: 'vendor-gen-4-5-251129' })).toMatch(/did you mean "vendor-gen-4-5-251128"\?/);
    expect(message({ model: 'gpt-image-1' })).toMatch(/^unknown model "gpt-image-1"; available: vendor-gen-3-0-t2i-250415, /);
  });
});
