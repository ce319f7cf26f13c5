import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startStack, type Stack } from './stack.js';

/**
 * Hostile input, generated (fast-check) and from a fixed corpus of every class that once hurt
 * the relay: never a 5xx, always an error body in the endpoint's own dialect, /healthz answering
 * while the heaviest bodies are refused, and nothing left in Redis by a refused request.
 */
let stack: Stack;
let funded: string;
let broke: string;
beforeAll(async () => {
  stack = await startStack({ api: { RATE_LIMIT_PER_MINUTE: '1000000' } });
  [funded, broke] = await Promise.all([stack.newKey().then((k) => k.key), stack.newKey({ balance: 0 }).then((k) => k.key)]);
}, 60_000);
afterAll(async () => stack?.close());

type Dialect = 'openai' | 'google';
interface Probe {
  method: 'GET' | 'POST';
  path: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
  dialect: Dialect;
}

async function send(probe: Probe, key = funded): Promise<{ status: number; body: unknown; type: string }> {
  const auth: Record<string, string> = probe.dialect === 'google' ? { 'x-goog-api-key': key } : { authorization: `Bearer ${key}` };
  const res = await fetch(`${stack.url}${probe.path}`, {
    method: probe.method,
    headers: {
      ...(probe.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...auth,
      Prefer: 'respond-async',
      ...probe.headers,
    },
    body: probe.body,
  });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, body, type: res.headers.get('content-type') ?? '' };
}

/** No 5xx; a 4xx is JSON in the dialect of the endpoint it was sent to. */
function expectSound(probe: Probe, answer: { status: number; body: unknown; type: string }) {
  const context = `${probe.method} ${probe.path.slice(0, 120)} -> ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`;
  expect(answer.status, context).toBeLessThan(500);
  if (answer.status < 400) return;
  expect(answer.type, context).toMatch(/application\/json/);
  const error = (answer.body as { error?: Record<string, unknown> }).error;
  expect(error, context).toBeTypeOf('object');
  if (probe.dialect === 'openai') {
    expect(error, context).toMatchObject({ message: expect.any(String), type: expect.any(String), code: expect.any(String) });
    expect(error!.param === null || typeof error!.param === 'string', context).toBe(true);
  } else {
    expect(error, context).toMatchObject({ code: answer.status, message: expect.any(String), status: expect.stringMatching(/^[A-Z_]+$/) });
  }
}

// --- generated input ---------------------------------------------------------------------------

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

const PNG_1PX = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
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

const probes: fc.Arbitrary<Probe> = fc.oneof(
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

test('generated hostile requests on every endpoint: no 5xx, errors in the endpoint dialect', async () => {
  const statuses: Record<number, number> = {};
  await fc.assert(
    fc.asyncProperty(probes, fc.boolean(), async (probe, withMoney) => {
      const answer = await send(probe, withMoney ? funded : broke);
      statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
      expectSound(probe, answer);
    }),
    { numRuns: 2_000 },
  );
  console.log('generated requests by status:', statuses);
  // the generator reaches past validation too: accepted jobs (202), refusals for money (402)
  expect(Object.keys(statuses).map(Number)).toEqual(expect.arrayContaining([202, 400, 402, 404]));
  // nothing reached Object.prototype along the way (the api runs in this process)
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
}, 240_000);

// --- the fixed corpus: each class of the issue, at its heaviest --------------------------------

const TTS = '/v1beta/models/vendor-2.5-flash-preview-tts:generateContent';
const SPEECH_OK = { contents: [{ parts: [{ text: 'hi' }] }], generationConfig: { responseModalities: ['AUDIO'] } };
const image = (extra: Record<string, unknown>) => JSON.stringify({ model: 'vendor-gen-4-0-250828', prompt: 'x', ...extra });
const MiB = 1024 * 1024;
const corpus: Array<[string, Probe, number]> = [
  [
    'a million-entry image array (4 MB)',
    { method: 'POST', path: '/v1/images/generations', body: image({ image: Array(1_000_000).fill('x') }), dialect: 'openai' },
    400,
  ],
  [
    'an 8 MB image URL',
    {
      method: 'POST',
      path: '/v1/images/generations',
      body: image({ image: `https://example.com/${'a'.repeat(8 * MiB)}` }),
      dialect: 'openai',
    },
    400,
  ],
  [
    'a prompt just under the body limit (31 MiB)',
    { method: 'POST', path: '/v1/images/generations', body: image({ prompt: 'p'.repeat(31 * MiB) }), dialect: 'openai' },
    400,
  ],
  [
    'a million bare numbers',
    { method: 'POST', path: '/v1/images/generations', body: `{"seed":[${Array(1_000_000).fill('1').join(',')}]}`, dialect: 'openai' },
    400,
  ],
  [
    'a hundred thousand keys',
    {
      method: 'POST',
      path: '/v1/images/generations',
      body: JSON.stringify(Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, 1]))),
      dialect: 'openai',
    },
    400,
  ],
  [
    'imageConfig nested 10,000 deep',
    {
      method: 'POST',
      path: TTS,
      body: `{"contents":[{"parts":[{"text":"hi"}]}],"generationConfig":{"responseModalities":["AUDIO"],"imageConfig":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}}`,
      dialect: 'google',
    },
    400,
  ],
  [
    'a gzip bomb (1 GiB of zeros)',
    {
      method: 'POST',
      path: '/v1/images/generations',
      body: gzipSync(Buffer.alloc(1024 * MiB)),
      headers: { 'content-encoding': 'gzip' },
      dialect: 'openai',
    },
    413,
  ],
  [
    'a prototype-polluting body',
    {
      method: 'POST',
      path: '/v1/images/generations',
      body: '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"model":"vendor-gen-4-0-250828","prompt":"x"}',
      dialect: 'openai',
    },
    400,
  ],
  [
    'model "constructor"',
    { method: 'POST', path: '/v1/images/generations', body: image({ model: 'constructor' }), dialect: 'openai' },
    400,
  ],
  [
    'speech path __proto__',
    { method: 'POST', path: '/v1beta/models/__proto__:generateContent', body: JSON.stringify(SPEECH_OK), dialect: 'google' },
    404,
  ],
  [
    'speech body model toString',
    { method: 'POST', path: TTS, body: JSON.stringify({ ...SPEECH_OK, model: 'toString' }), dialect: 'google' },
    400,
  ],
  ['GET /v1/jobs/toString_1', { method: 'GET', path: '/v1/jobs/toString_1', dialect: 'openai' }, 404],
  [
    'a broken inline image',
    { method: 'POST', path: '/v1/images/generations', body: image({ image: 'data:image/png;base64,aGVsbG8gd29ybGQ=' }), dialect: 'openai' },
    400,
  ],
  [
    'an image URL into the relay host',
    {
      method: 'POST',
      path: '/v1/images/generations',
      body: image({ image: 'http://169.254.169.254/latest/meta-data/' }),
      dialect: 'openai',
    },
    400,
  ],
];

/**
 * CPU time of this thread (the event loop the in-process api runs on), in ms: the work that can
 * hold other requests up. A loaded machine stretches wall time, not this (Node 23.9+; older
 * versions count the whole process).
 */
const threadCpu = (process as { threadCpuUsage?: (previous?: NodeJS.CpuUsage) => NodeJS.CpuUsage }).threadCpuUsage?.bind(process);
const cpuNow = () => (threadCpu ?? process.cpuUsage.bind(process))();
const cpuMsSince = (start: NodeJS.CpuUsage) => {
  const now = cpuNow();
  return (now.user - start.user + now.system - start.system) / 1000;
};

/** The event loop's work to parse the largest body the relay accepts (32 MiB of JSON): the one piece of synchronous work a request may cost. */
function largestParseCpuMs() {
  const body = JSON.stringify({ prompt: 'p'.repeat(32 * MiB - 16) });
  const started = cpuNow();
  JSON.parse(body);
  return cpuMsSince(started);
}

describe('the fixed corpus', () => {
  test.each(corpus.map(([label, probe, status]) => ({ label, probe, status })))(
    '$label: refused with $status, /healthz answering meanwhile',
    async ({ probe, status }) => {
      // the event loop's work while one /healthz waited: at most a few parses of the largest body
      // (measured in CPU time, so a loaded machine, which stretches waits, does not move it)
      const boundMs = Math.max(200, 4 * largestParseCpuMs());
      let heaviestHealthCpuMs = 0;
      let refused = false;
      const answer = send(probe, broke).finally(() => (refused = true));
      // keep asking for /healthz until the hostile request is answered
      while (!refused) {
        const started = cpuNow();
        const health = await fetch(`${stack.url}/healthz`);
        expect(health.status).toBe(200);
        heaviestHealthCpuMs = Math.max(heaviestHealthCpuMs, cpuMsSince(started));
      }
      const result = await answer;
      expectSound(probe, result);
      expect(result.status).toBe(status);
      expect(heaviestHealthCpuMs).toBeLessThan(boundMs);
    },
    60_000,
  );

  test('a refused request leaves nothing in Redis', async () => {
    const before = await stack.redisFootprint();
    for (const [, probe] of corpus) await send(probe, broke);
    const after = await stack.redisFootprint();
    const perRequest = (after.bytes - before.bytes) / corpus.length;
    console.log(
      `Redis growth per refused request: ${perRequest.toFixed(1)} bytes (${after.keys - before.keys} new keys for ${corpus.length} requests)`,
    );
    expect(after.keys).toBe(before.keys);
    expect(perRequest).toBeLessThan(16);
  }, 120_000);
});
