import fc from 'fast-check';

/** What the fuzz test sends: hostile requests of every endpoint, generated (fast-check). */
export type Dialect = 'openai' | 'google';
export interface Probe {
  method: 'GET' | 'POST';
  path: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
  dialect: Dialect;
}

const protoName = fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype', '__defineGetter__');
const nasty = fc.constantFrom(
  '',
  ' ',
  '2K',
  '3K',
  '2048x2048',
  '0x0',
  '99999x1',
  'data:image/png;base64,AAAA',
  'data:image/PNG;base64,',
  'http://127.0.0.1:1/a.png',
  'file:///etc/passwd',
  '\u0000',
  '\ud800',
  '../../etc/passwd',
  'AUDIO',
  'Kore',
);
const text = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 20 }), protoName, nasty);
const scalar = fc.oneof(text, fc.integer(), fc.double(), fc.boolean(), fc.constant(null));
const value = fc.oneof(
  { depthSize: 'small' },
  scalar,
  fc.array(scalar, { maxLength: 20 }),
  fc.dictionary(fc.oneof(text, protoName), scalar, { maxKeys: 6 }),
  fc.jsonValue({ maxDepth: 4 }),
);
const extraKeys = fc.dictionary(fc.oneof(protoName, fc.string({ maxLength: 12 })), value, { maxKeys: 3 });

export const PNG_1PX =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const TEXT_TO_IMAGE = ['vendor-gen-3-0-t2i-250415', 'vendor-gen-5-0-260128', 'vendor-gen-4-5-251128', 'vendor-gen-4-0-250828'];

/** Bodies that pass validation, with one field made hostile, or junk throughout: each reaches a different depth. */
function mutations(valid: fc.Arbitrary<Record<string, unknown>>, fields: string[]) {
  const mutated = fc
    .tuple(valid, fc.oneof(fc.constantFrom(...fields), protoName, fc.string({ maxLength: 12 })), value)
    .map(([body, field, junk]) => {
      const copy: Record<string, unknown> = { ...body };
      Object.defineProperty(copy, field, { value: junk, enumerable: true, writable: true, configurable: true });
      return copy;
    });
  const junk = fc
    .tuple(fc.dictionary(fc.constantFrom(...fields), value, { maxKeys: fields.length }), extraKeys)
    .map(([a, b]) => ({ ...b, ...a }));
  return fc
    .oneof({ weight: 2, arbitrary: valid }, { weight: 3, arbitrary: mutated }, { weight: 1, arbitrary: junk })
    .map((body) => JSON.stringify(body));
}

const imageBody = mutations(
  fc.record(
    {
      model: fc.constantFrom(...TEXT_TO_IMAGE),
      image: fc.constantFrom(PNG_1PX, [PNG_1PX, PNG_1PX]),
      prompt: fc.string({ minLength: 1, maxLength: 60 }).filter((p) => p.trim().length > 0),
      size: fc.constantFrom('2K', '2048x2048', '2304x1728'),
      response_format: fc.constantFrom('url', 'b64_json'),
      watermark: fc.boolean(),
    },
    { requiredKeys: ['model', 'prompt'] },
  ),
  [
    'model',
    'prompt',
    'image',
    'size',
    'seed',
    'sequential_image_generation',
    'sequential_image_generation_options',
    'guidance_scale',
    'output_format',
    'response_format',
    'watermark',
  ],
);

const speechBody = mutations(
  fc.record(
    {
      contents: fc.array(
        fc.record({ parts: fc.array(fc.record({ text: fc.string({ minLength: 1, maxLength: 80 }) }), { minLength: 1, maxLength: 3 }) }),
        { minLength: 1, maxLength: 2 },
      ),
      generationConfig: fc.record({
        responseModalities: fc.constant(['AUDIO']),
        speechConfig: fc
          .constantFrom('Kore', 'Puck', 'Zephyr')
          .map((voiceName) => ({ voiceConfig: { prebuiltVoiceConfig: { voiceName } } })),
      }),
    },
    { requiredKeys: ['contents', 'generationConfig'] },
  ),
  ['contents', 'generationConfig', 'model', 'systemInstruction'],
);

const openAISpeechBody = mutations(
  fc.record(
    {
      model: fc.constantFrom('tts-1', 'gpt-4o-mini-tts', 'vendor-2.5-flash-preview-tts'),
      input: fc.string({ minLength: 1, maxLength: 80 }).filter((t) => t.trim().length > 0),
      voice: fc.constantFrom('alloy', 'onyx', 'Kore'),
      response_format: fc.constantFrom('mp3', 'opus', 'wav', 'pcm'),
      speed: fc.double({ min: 0.25, max: 4, noNaN: true }),
      stream_format: fc.constantFrom('audio', 'sse'),
      instructions: fc.string({ maxLength: 40 }),
    },
    { requiredKeys: ['model', 'input', 'voice'] },
  ),
  ['model', 'input', 'voice', 'response_format', 'speed', 'stream_format', 'instructions', 'speakers'],
);

const editBody = mutations(
  fc.record(
    {
      model: fc.constantFrom('vendor-edit-3-0-i2i-250628', 'vendor-gen-4-0-250828'),
      prompt: fc.string({ minLength: 1, maxLength: 60 }).filter((p) => p.trim().length > 0),
      images: fc.constantFrom([{ image_url: PNG_1PX }], [{ image_url: PNG_1PX }, { image_url: PNG_1PX }]),
      stream: fc.boolean(),
    },
    { requiredKeys: ['model', 'prompt', 'images'] },
  ),
  ['model', 'prompt', 'images', 'image', 'mask', 'stream', 'partial_images', 'n', 'size'],
);

const pathSegment = fc.oneof(
  fc
    .oneof(
      text,
      fc.constantFrom(
        'vendor-2.5-flash-preview-tts',
        'vendor-2.5-flash-preview-tts:generateContent',
        `img_${'0'.repeat(32)}`,
        'img_x-0.jpeg',
      ),
    )
    .map((segment) => encodeURIComponent(segment.replace(/[\ud800-\udfff]/g, '\ufffd')).replace(/%3A/g, ':')),
  // written raw: broken percent-encoding, traversal
  fc.constantFrom('%', '%E0%A4%A', '%00', '..%2F..%2Fetc%2Fpasswd', '%2e%2e'),
);
const headers = fc.record(
  {
    'Idempotency-Key': fc.oneof(
      { weight: 4, arbitrary: fc.string({ minLength: 1, maxLength: 8 }) },
      { weight: 1, arbitrary: fc.string({ maxLength: 300 }) },
    ),
    Prefer: fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('wait=0', 'wait=99999999999', 'respond-async, wait=1')),
  },
  { requiredKeys: [] },
);

export const probes: fc.Arbitrary<Probe> = fc.oneof(
  fc
    .tuple(imageBody, headers)
    .map(([body, h]) => ({ method: 'POST' as const, path: '/v1/images/generations', body, headers: h, dialect: 'openai' as const })),
  fc
    .tuple(fc.oneof(fc.constant('vendor-2.5-flash-preview-tts:generateContent'), pathSegment), speechBody, headers)
    .map(([model, body, h]) => ({
      method: 'POST' as const,
      path: `/v1beta/models/${model}`,
      body,
      headers: h,
      dialect: 'google' as const,
    })),
  fc
    .tuple(openAISpeechBody, headers)
    .map(([body, h]) => ({ method: 'POST' as const, path: '/v1/audio/speech', body, headers: h, dialect: 'openai' as const })),
  fc
    .tuple(editBody, headers)
    .map(([body, h]) => ({ method: 'POST' as const, path: '/v1/images/edits', body, headers: h, dialect: 'openai' as const })),
  pathSegment.map((id) => ({ method: 'GET' as const, path: `/v1/jobs/${id}`, dialect: 'openai' as const })),
  pathSegment.map((id) => ({ method: 'GET' as const, path: `/files/${id}`, dialect: 'openai' as const })),
);
