import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { AppError, loadCatalog, parseOrThrow } from '@relay/core';
import {
  conversionOf,
  editAsImageRequest,
  endUserOf,
  generationsOf,
  imageRequestSchema,
  openAIEditFields,
  type ImageRequest,
} from '@relay/jobs';
import { arkRequestOf } from '@relay/worker';
import { repoRoot } from '@relay/testkit';

/**
 * Every field of OpenAI's image requests and of the vendor's gets an answer: the relay maps it,
 * passes it to the vendor, refuses it with a 400 that names it, or (documented) it has no effect.
 * The OpenAI fields are read from the SDK's own types at test time, so an SDK that gains a field
 * fails here until the relay answers it; docs/fields.md must say the same for each.
 */

/** The property names of an interface of the openai SDK's images.d.ts (its members sit four spaces in). */
function sdkFields(name: string): string[] {
  const file = join(dirname(createRequire(import.meta.url).resolve('openai')), 'resources/images.d.ts');
  const text = readFileSync(file, 'utf8');
  const start = text.indexOf(`export interface ${name} {`);
  expect(start, `${name} in the openai SDK`).toBeGreaterThan(-1);
  return [...text.slice(start, text.indexOf('\n}', start)).matchAll(/^ {4}(\w+)\??:/gm)].map((m) => m[1]!);
}

/**
 * The vendor's request fields: the volcengine Go SDK's GenerateImagesRequest (2026-08), and
 * `background`, which the 5.0 pro and 5.5 documentation add.
 */
const SEEDREAM_FIELDS = [
  'model',
  'prompt',
  'image',
  'response_format',
  'seed',
  'guidance_scale',
  'size',
  'watermark',
  'optimize_prompt',
  'optimize_prompt_options',
  'sequential_image_generation',
  'sequential_image_generation_options',
  'tools',
  'output_format',
  'layer_decomposition',
  'stream',
  'background',
];

const catalog = loadCatalog({}).imageModels;
const V55 = 'vendor-gen-5-5-261028';
const PRO = 'vendor-gen-5-0-pro-260628';
const T2I = 'vendor-gen-3-0-t2i-250415';
const LITE = 'vendor-gen-5-0-260128';
const JPEG_ONLY = 'vendor-gen-4-5-251128';

type ArkBody = ReturnType<typeof arkRequestOf>;
type Relay = 'mapped' | 'passed' | 'refused' | 'no effect';
interface Expectation {
  relay: Relay;
  /** What is sent beside model and prompt. */
  body: Record<string, unknown>;
  model?: string;
  /** Sent to the edits door (OpenAI's JSON edit body) rather than to generations. */
  edit?: boolean;
  /** mapped: what the relay made of it. */
  holds?: (request: ImageRequest, ark: ArkBody) => void;
  /** passed: a model that does not take the value, which must refuse it by name. */
  refusedOn?: string;
}

const INPUT = 'https://in.example/1.png';

const EXPECTED: Record<string, Expectation> = {
  model: { relay: 'mapped', body: {}, holds: (_, ark) => expect(ark.model).toBe(catalog[V55]!.upstreamModel) },
  prompt: { relay: 'passed', body: { prompt: 'a mug on a shelf' } },
  image: { relay: 'mapped', body: { images: [{ image_url: INPUT }] }, edit: true, holds: (_, ark) => expect(ark.image).toBe(INPUT) },
  n: { relay: 'mapped', body: { n: 3 }, holds: (request, ark) => expect([generationsOf(request), 'n' in ark]).toEqual([3, false]) },
  size: { relay: 'mapped', body: { size: '3K' }, holds: (_, ark) => expect(ark.size).toBe('2048x2048') },
  response_format: { relay: 'mapped', body: { response_format: 'b64_json' }, holds: (_, ark) => expect(ark.response_format).toBe('url') },
  stream: {
    relay: 'mapped',
    body: { stream: true },
    holds: (request, ark) => expect([request.stream, ark.stream]).toEqual([true, undefined]),
  },
  user: {
    relay: 'mapped',
    body: { user: 'u-1' },
    holds: (request, ark) => expect([endUserOf(request), 'user' in ark]).toEqual(['u-1', false]),
  },
  safety_identifier: {
    relay: 'mapped',
    body: { safety_identifier: 's-1' },
    holds: (request, ark) => expect([endUserOf(request), 'safety_identifier' in ark]).toEqual(['s-1', false]),
  },
  quality: { relay: 'no effect', body: { quality: 'high' } },
  style: { relay: 'no effect', body: { style: 'natural' } },
  partial_images: { relay: 'no effect', body: { stream: true, partial_images: 2 } },
  output_format: {
    relay: 'mapped',
    model: JPEG_ONLY,
    body: { output_format: 'png' },
    // the model makes JPEG only: it is asked for nothing and the worker converts its image
    holds: (request, ark) =>
      expect([ark.output_format, conversionOf(request, catalog[JPEG_ONLY]!)]).toEqual([undefined, { format: 'png' }]),
  },
  background: { relay: 'passed', body: { background: 'transparent' }, refusedOn: LITE },
  moderation: { relay: 'refused', body: { moderation: 'low' } },
  output_compression: {
    relay: 'mapped',
    body: { output_format: 'webp', output_compression: 80 },
    holds: (request, ark) =>
      expect([ark.output_format, conversionOf(request, catalog[V55]!)]).toEqual(['png', { format: 'webp', quality: 80 }]),
  },
  input_fidelity: { relay: 'refused', body: { input_fidelity: 'high', images: [{ image_url: INPUT }] }, edit: true },
  complexity: { relay: 'refused', body: { complexity: 'low' } },
  frame_count: { relay: 'refused', body: { frame_count: 4 } },
  frame_duration_ms: { relay: 'refused', body: { frame_duration_ms: 100 } },
  svg: { relay: 'refused', body: { svg: { model: 'x' } } },
  mask: { relay: 'refused', body: { mask: 'data:image/png;base64,AAAA', images: [{ image_url: INPUT }] }, edit: true },
  markup: { relay: 'refused', body: { markup: 'data:image/png;base64,AAAA', images: [{ image_url: INPUT }] }, edit: true },
  seed: { relay: 'passed', model: T2I, body: { seed: 7 }, refusedOn: V55 },
  guidance_scale: { relay: 'passed', model: T2I, body: { guidance_scale: 3 }, refusedOn: V55 },
  watermark: { relay: 'passed', body: { watermark: false } },
  sequential_image_generation: { relay: 'passed', model: LITE, body: { sequential_image_generation: 'auto' }, refusedOn: V55 },
  sequential_image_generation_options: {
    relay: 'passed',
    model: LITE,
    body: { sequential_image_generation: 'auto', sequential_image_generation_options: { max_images: 2 } },
    refusedOn: V55,
  },
  optimize_prompt_options: { relay: 'passed', body: { optimize_prompt_options: { mode: 'standard' } }, refusedOn: T2I },
  optimize_prompt: { relay: 'refused', body: { optimize_prompt: true } },
  tools: { relay: 'passed', model: LITE, body: { tools: [{ type: 'web_search' }] }, refusedOn: V55 },
  layer_decomposition: { relay: 'passed', model: PRO, body: { layer_decomposition: true, image: INPUT }, refusedOn: V55 },
};

const schema = imageRequestSchema(catalog);

/** The request as the relay validates it, or the field its 400 names and the message. */
function accept(model: string, expectation: Expectation): { request: ImageRequest } | { param: string; message: string } {
  const body = { model, prompt: 'a mug', ...expectation.body };
  try {
    const sent = expectation.edit ? editAsImageRequest(parseOrThrow(openAIEditFields, body)) : body;
    return { request: parseOrThrow(schema, sent) };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return { param: error.param ?? '', message: error.message };
  }
}

/** Every field a model's refusal of the body names (each rule it breaks). */
function refusedFields(model: string, expectation: Expectation): unknown[] {
  const result = schema.safeParse({ model, prompt: 'a mug', ...expectation.body });
  return result.success ? [] : result.error.issues.map((issue) => issue.path[0]);
}

const arkBodyOf = (request: ImageRequest) => {
  const inputs = request.image === undefined ? [] : [request.image].flat();
  return arkRequestOf({
    request: { ...request, image: [] },
    model: catalog[request.model]!,
    vendorModel: catalog[request.model]!.upstreamModel,
    inputs,
  });
};

/** docs/fields.md: field -> what its row says the relay does. */
function documented(): Map<string, string> {
  const text = readFileSync(join(repoRoot, 'docs/fields.md'), 'utf8');
  // the image table, not the speech one below it
  const images = text.slice(0, text.indexOf('## Speech request fields'));
  return new Map([...images.matchAll(/^\| `(\w+)` \| [^|]+ \| ([a-z ]+) \|/gm)].map((m) => [m[1]!, m[2]!]));
}

const ALL_FIELDS = [...new Set([...sdkFields('ImageGenerateParamsBase'), ...sdkFields('ImageEditParamsBase'), ...SEEDREAM_FIELDS])];

describe('every image request field has an answer', () => {
  test('the SDK types were read (they hold the fields every client sends)', () => {
    expect(ALL_FIELDS).toEqual(expect.arrayContaining(['prompt', 'n', 'size', 'background', 'output_format', 'mask']));
  });

  test.each(ALL_FIELDS)('%s', (field) => {
    const expectation = EXPECTED[field];
    expect(expectation, `${field} is sent by clients or the vendor but the relay has no answer for it`).toBeDefined();
    const { relay, model = V55, holds, refusedOn } = expectation!;
    const outcome = accept(model, expectation!);
    if (relay === 'refused') {
      expect(outcome).toMatchObject({ param: expect.stringMatching(new RegExp(`^${field}\\b`)) });
      expect((outcome as { message: string }).message).toContain(field);
      return;
    }
    expect('request' in outcome, JSON.stringify(outcome)).toBe(true);
    const { request } = outcome as { request: ImageRequest };
    const ark = arkBodyOf(request);
    if (relay === 'passed') expect(ark[field as keyof ArkBody]).toEqual(expectation!.body[field]);
    if (relay === 'no effect') expect(field in ark).toBe(false);
    if (relay === 'mapped') holds!(request, ark);
    if (refusedOn) expect(refusedFields(refusedOn, expectation!)).toContain(field);
  });

  test('docs/fields.md has a row for each, saying what the relay does, and no row for a field nobody sends', () => {
    const rows = documented();
    for (const field of ALL_FIELDS) expect(rows.get(field), field).toBe(EXPECTED[field]!.relay);
    expect([...rows.keys()].filter((field) => !ALL_FIELDS.includes(field))).toEqual([]);
  });
});
