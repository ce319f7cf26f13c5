/**
 * The simulator against what the vendors really send (fixtures/vendor/README.md names each
 * file's source). Every answer is compared with its fixture field by field in shape: the same keys
 * at every level, the same JSON types; values (ids, times, urls) may differ. Where a value is
 * the vendor's arithmetic (usage), it is compared too.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadSimulatorConfig } from './config.js';
import type { FaultInput } from './faults.js';
import { renderImage } from './render/encode.js';
import { startSimulator, type RunningSimulator } from './server.js';
import { queueFault } from './sim.test-support.js';

const repoRoot = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
/** The repo's own copy, which the test reads. */
const FIXTURES = path.join(repoRoot, 'apps/simulator/fixtures/vendor');
/** The shared reference it was copied from, beside the clone (here and on CI), when present. */
const SHARED = path.resolve(repoRoot, '../shared/reference/vendor-fixtures');

const fixtureText = (name: string) => readFileSync(path.join(FIXTURES, name), 'utf8');
const fixture = (name: string) => JSON.parse(fixtureText(name)) as Json;

type Json = Record<string, unknown>;
type Shape = string | Shape[] | { [key: string]: Shape };

/** Keys (sorted) and JSON types at every level; arrays element by element. */
function shapeOf(value: unknown): Shape {
  if (value === null) return 'null';
  if (Array.isArray(value)) return value.map(shapeOf);
  if (typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([key, child]) => [key, shapeOf(child)]),
    );
  }
  return typeof value;
}

const sameShape = (actual: unknown, expected: unknown) => expect(shapeOf(actual)).toEqual(shapeOf(expected));

/**
 * The Volcengine stream-event docs print JSON with typos, kept verbatim in the `.txt` fixtures:
 * a full-width comma (U+FF0C) for a comma, trailing commas, and `xx` where a number goes. Only
 * those are undone here, to read the shape the docs mean; nothing else is changed.
 */
const docJson = (text: string) =>
  JSON.parse(
    text
      .replace(/\uff0c/g, ',')
      .replace(/,(\s*[}\]])/g, '$1')
      .replace(/:\s*xx\b/g, ': 0'),
  ) as Json;

interface SseEvent {
  event?: string;
  data: string;
}

/** SSE blocks; a `data:` JSON printed across several lines (as the doc prints it) is read whole. */
function sseEvents(text: string, oneLine: boolean): SseEvent[] {
  return text
    .split(/\r?\n\r?\n/)
    .filter((block) => block.trim())
    .map((block) => {
      const lines = block.trimEnd().split(/\r?\n/); // the file ends with a newline of its own
      const event = lines.find((l) => l.startsWith('event: '))?.slice(7);
      const at = lines.findIndex((l) => l.startsWith('data: '));
      const rest = lines.slice(at + 1);
      // on the wire, one `data:` line is one JSON (the SDKs read it so)
      if (oneLine) expect(rest).toEqual([]);
      return { ...(event ? { event } : {}), data: [lines[at]!.slice(6), ...rest].join('\n') };
    });
}

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator(loadSimulatorConfig({ SIM_PORT: '0', SIM_MAX_IPM: '0' }));
});
afterAll(async () => sim?.close());

const fault = (f: FaultInput) => queueFault(sim.url, f);
const ark = (body: Json) =>
  fetch(`${sim.url}/api/v3/images/generations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sim-key' },
    body: JSON.stringify(body),
  });
const arkJson = async (body: Json) => {
  const res = await ark(body);
  expect(res.status).toBe(200);
  return (await res.json()) as Json;
};
/** A stream's events as sent (one `data:` line each), [DONE] included. */
const arkStream = async (body: Json) => {
  const res = await ark({ ...body, stream: true });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  return sseEvents(await res.text(), true);
};
const parsed = (events: SseEvent[]) => events.filter((e) => e.data !== '[DONE]').map((e) => JSON.parse(e.data) as Json);

const tts = (model: string, text = 'Say cheerfully: Have a wonderful day!') =>
  fetch(`${sim.url}/v1beta/models/${model}:generateContent`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': 'sim-key' },
    body: JSON.stringify({
      contents: [{ parts: [{ text }] }],
      generationConfig: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } } },
    }),
  });

describe('the fixtures', () => {
  test.runIf(existsSync(SHARED))('the repo holds the shared reference verbatim', () => {
    const list = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? list(path.join(dir, e.name)) : [path.join(dir, e.name)]));
    const names = list(SHARED).map((f) => path.relative(SHARED, f));
    expect(
      list(FIXTURES)
        .map((f) => path.relative(FIXTURES, f))
        .sort(),
    ).toEqual([...names].sort());
    for (const name of names)
      expect(readFileSync(path.join(FIXTURES, name)).equals(readFileSync(path.join(SHARED, name))), name).toBe(true);
  });
});

describe('Ark answers', () => {
  test('the 4.5 single answer (BytePlus doc): same shape, usage W*H/256', async () => {
    const real = fixture('seedream/byteplus-doc-4-5-t2i-response.json');
    const ours = await arkJson({ model: 'seedream-4-5-251128', prompt: 'a lighthouse', size: '1760x2368' });
    sameShape(ours, real);
    expect(ours.usage).toEqual(real.usage);
  });

  test('the 3-image set (BytePlus doc): same shape, usage 3 x W*H/256', async () => {
    const real = fixture('seedream/byteplus-doc-4-5-sequential-3-images-response.json');
    const ours = await arkJson({
      model: 'seedream-4-5-251128',
      prompt: 'a story in 3 panels',
      size: '2720x1536',
      sequential_image_generation: 'auto',
    });
    sameShape(ours, real);
    expect(ours.usage).toEqual(real.usage);
  });

  test('a real BytePlus 4.0 answer without model and created (answer-shape), its TOS-style signed link', async () => {
    const real = fixture('seedream/byteplus-real-4-0-response.image-gen-mcp.json') as { data: Array<{ url: string }> };
    await fault({ type: 'answer-shape', api: 'images', omit: ['model', 'created'] });
    const ours = (await arkJson({ model: 'seedream-4-0-250828', prompt: 'a lighthouse', size: '1728x2304' })) as typeof real;
    sameShape(ours, real);
    expect(ours).toMatchObject({ usage: (real as Json).usage as Json });
    for (const { url } of [real.data[0]!, ours.data[0]!]) {
      expect(url).toMatch(/_0\.jpeg\?X-Tos-Algorithm=TOS4-HMAC-SHA256&/);
      expect(new URL(url).searchParams.get('X-Tos-Expires')).toBe('86400');
      expect(new URL(url).searchParams.get('X-Tos-Date')).toMatch(/^\d{8}T\d{6}Z$/);
    }
  });

  test('SeedEdit 3.0 (no data[].size) under answer-shape omit size', async () => {
    const real = fixture('seedream/volcengine-seededit-3-0-response.gptproto-copy.json');
    await fault({ type: 'answer-shape', api: 'images', omit: ['size'] });
    const image = `data:image/png;base64,${renderImage({ width: 64, height: 48, format: 'png', watermark: false, hue: 1 }).toString('base64')}`;
    sameShape(await arkJson({ model: 'doubao-seededit-3-0-i2i-250628', prompt: 'make it blue', image }), real);
  });

  test('3.0-t2i (no size, usage with generated_images only) under answer-shape omit size and output_tokens', async () => {
    const real = fixture('seedream/volcengine-seedream-3-0-t2i-response.302ai-copy.json');
    await fault({ type: 'answer-shape', api: 'images', omit: ['size', 'output_tokens'] });
    sameShape(await arkJson({ model: 'doubao-seedream-3-0-t2i-250415', prompt: 'a lighthouse' }), real);
  });

  test('the documented size format: <width>x<height> on the wire, "2048×2048" in the docs (answer-shape sizeSeparator)', async () => {
    const doc = fixtureText('seedream/byteplus-doc-nonstream-response-parameters.txt');
    expect(doc).toContain('`2048×2048`');
    await fault({ type: 'answer-shape', api: 'images', sizeSeparator: '×' });
    const ours = (await arkJson({ model: 'seedream-4-0-250828', prompt: 'x' })) as { data: Array<{ size: string }> };
    expect(ours.data[0]!.size).toBe('2048×2048');
  });
});

describe('Ark streams', () => {
  test('the 4.5 stream (BytePlus doc): the same events in order, each of the same shape; [DONE] last', async () => {
    const real = sseEvents(fixtureText('seedream/byteplus-doc-4-5-stream.sse'), false);
    const ours = await arkStream({
      model: 'seedream-4-5-251128',
      prompt: 'a story in 3 panels',
      size: '2496x1664',
      sequential_image_generation: 'auto',
    });
    expect(ours.map((e) => e.event)).toEqual(real.map((e) => e.event));
    expect(ours.at(-1)).toEqual(real.at(-1));
    const [oursParsed, realParsed] = [parsed(ours), parsed(real)];
    expect(oursParsed).toHaveLength(realParsed.length);
    for (const [i, event] of oursParsed.entries()) sameShape(event, realParsed[i]);
    expect(oursParsed.at(-1)!.usage).toEqual(realParsed.at(-1)!.usage);
  });

  test('partial_succeeded as the Volcengine doc prints it (size with ×, under answer-shape)', async () => {
    const real = fixture('seedream/volcengine-doc-stream-partial-succeeded.json');
    await fault({ type: 'answer-shape', api: 'images', sizeSeparator: '×' });
    const [ours] = parsed(await arkStream({ model: 'doubao-seedream-5-0-260128', prompt: 'a lighthouse', size: '2048x2048' }));
    sameShape(ours, real);
    expect(ours!.size).toBe(real.size);
  });

  test('partial_failed (Volcengine doc): image_index and error{code,message}, the same message', async () => {
    const real = docJson(fixtureText('seedream/volcengine-doc-stream-partial-failed.txt'));
    await fault({ type: 'image-error', api: 'images', index: 2, code: 'OutputImageSensitiveContentDetected' });
    const events = parsed(
      await arkStream({ model: 'doubao-seedream-5-0-260128', prompt: 'a story in 3 panels', sequential_image_generation: 'auto' }),
    );
    const ours = events.find((e) => e.type === 'image_generation.partial_failed');
    sameShape(ours, real);
    expect(ours).toMatchObject({ image_index: 2, error: real.error as Json });
  });

  test('completed with the web search tool (Volcengine doc): tools and usage.tool_usage', async () => {
    const real = docJson(fixtureText('seedream/volcengine-doc-stream-completed.txt'));
    const events = parsed(
      await arkStream({
        model: 'doubao-seedream-5-0-260128',
        prompt: 'a story in 2 panels',
        sequential_image_generation: 'auto',
        tools: [{ type: 'web_search' }],
      }),
    );
    sameShape(events.at(-1), real);
    expect(events.at(-1)!.tools).toEqual(real.tools);
  });

  test('the error event (Volcengine doc): {error: {code, message}}, the message ending with its request id', async () => {
    // the doc prints the member alone (`"error": {…}`): read inside braces
    const real = docJson(`{${fixtureText('seedream/volcengine-doc-stream-error.txt')}}`);
    await fault({ type: 'stream-error', api: 'images', after: 1, code: 'BadRequest' });
    const res = await ark({
      model: 'doubao-seedream-5-0-260128',
      prompt: 'a story in 2 panels',
      sequential_image_generation: 'auto',
      stream: true,
    });
    const requestId = res.headers.get('x-request-id')!;
    const events = sseEvents(await res.text(), true);
    expect(events.at(-1)!.event).toBe('error');
    const ours = JSON.parse(events.at(-1)!.data) as { error: { code: string; message: string } };
    sameShape(ours, real);
    expect(ours.error.code).toBe('BadRequest');
    // the doc writes "Request ID: {id}"; real bodies write "Request id: …" (ark-400-…), as ours does
    expect((real.error as { message: string }).message).toMatch(/Request ID: \{id\}$/);
    expect(ours.error.message).toMatch(new RegExp(`Request id: ${requestId}$`));
  });
});

describe('Ark error bodies', () => {
  /** A message with its values (ids, the model, the reset time) taken out: the wording itself. */
  const wording = (message: string) =>
    message
      .replace(/\[\d+\]/g, '[ACCOUNT]')
      .replace(/\[[\w.-]+\]/g, '[MODEL]')
      .replace(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+0800 CST/, 'TIME')
      .replace(/Request id: \w+$/, 'Request id: ID');

  test.each<[string, number, string]>([
    ['seedream/ark-429-AccountQuotaExceeded.json', 429, 'AccountQuotaExceeded'],
    ['seedream/ark-429-SetLimitExceeded.json', 429, 'SetLimitExceeded'],
    ['seedream/ark-400-OutputImageSensitiveContentDetected.json', 400, 'OutputImageSensitiveContentDetected'],
  ])('%s: the same shape and wording', async (name, status, code) => {
    const real = fixture(name) as { error: { message: string } };
    await fault({ type: 'error', api: 'images', status, code });
    const res = await ark({ model: 'doubao-seed-2-0-lite', prompt: 'x' });
    expect(res.status).toBe(status);
    expect(res.headers.get('retry-after')).toBeNull();
    const ours = (await res.json()) as typeof real;
    sameShape(ours, real);
    expect(wording(ours.error.message)).toBe(wording(real.error.message));
    expect(ours.error).toMatchObject({ ...real.error, message: expect.any(String) as string });
  });
});

describe('Gemini TTS answers', () => {
  test('success (2.5 Flash preview, via 302.ai): the same shape; the audio is base64 where 302.ai put a URL', async () => {
    const real = fixture('gemini/tts-success-2.5-flash.302ai-gateway.json');
    const res = await tts('gemini-2.5-flash-preview-tts');
    expect(res.status).toBe(200);
    const ours = (await res.json()) as {
      candidates: Array<{ content: { parts: Array<{ inlineData: { data: string; mimeType: string } }> } }>;
    };
    sameShape(ours, real);
    const inline = ours.candidates[0]!.content.parts[0]!.inlineData;
    expect(inline.data).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    expect(inline.mimeType).toBe('audio/L16;codec=pcm;rate=24000');
  });

  test('the mimeType labels as observed: 2.5 previews and 3.1 Flash TTS', async () => {
    const note = fixtureText('gemini/tts-3.1-mimetype.junaid-plan-tts.txt');
    const [label25, label31] = [/return `([^`]+)`/.exec(note)![1]!, /returns\n`([^`]+)`/.exec(note)![1]!];
    expect([label25, label31]).toEqual(['audio/L16;codec=pcm;rate=24000', 'audio/l16; rate=24000; channels=1']);
    for (const [model, label] of [
      ['gemini-2.5-flash-preview-tts', label25],
      ['gemini-2.5-pro-preview-tts', label25],
      ['gemini-3.1-flash-tts-preview', label31],
    ]) {
      const ours = (await (await tts(model!)).json()) as {
        candidates: Array<{ content: { parts: Array<{ inlineData: { mimeType: string } }> } }>;
      };
      expect(ours.candidates[0]!.content.parts[0]!.inlineData.mimeType, model).toBe(label);
    }
  });

  test('no-content (cookbook#1231): the candidate and the usage as pasted, field by field', async () => {
    // the issue pasted the candidate's fields beside the answer's usageMetadata: compared so
    const real = fixture('gemini/tts-200-no-audio-finish-other.cookbook-1231.json');
    await fault({ type: 'no-content', api: 'speech' });
    const res = await tts('gemini-3.1-flash-tts-preview');
    expect(res.status).toBe(200);
    const ours = (await res.json()) as { candidates: Json[]; usageMetadata: { promptTokenCount: number; candidatesTokenCount: number } };
    expect(ours.candidates).toHaveLength(1);
    sameShape({ ...ours.candidates[0], usageMetadata: ours.usageMetadata }, real);
    expect(ours.candidates[0]).toEqual({ content: {}, finishReason: 'OTHER' });
    expect(ours.usageMetadata.promptTokenCount).toBeGreaterThan(0);
    expect(ours.usageMetadata.candidatesTokenCount).toBeGreaterThan(0);
  });

  test('"Model tried to generate text" (esphome #507): the exact body', async () => {
    const real = fixture('gemini/tts-400-model-tried-to-generate-text.json');
    // the .txt is the log line the JSON was read from
    expect(fixtureText('gemini/tts-400-model-tried-to-generate-text.esphome-507.txt')).toContain(
      `400 INVALID_ARGUMENT. {'error': {'code': 400, 'message': '${(real.error as { message: string }).message}'`,
    );
    await fault({ type: 'refuse-text', api: 'speech' });
    const res = await tts('gemini-2.5-flash-preview-tts', 'Hello world');
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual(real);
  });

  test('429 with QuotaFailure, Help and RetryInfo (Roo-Code #3883): the same shape and message, no Retry-After', async () => {
    const real = fixture('gemini/429-resource-exhausted-retryinfo.roo-code-3883.json') as { error: { message: string } };
    await fault({ type: 'quota', api: 'speech', period: 'minute' });
    const res = await tts('gemini-2.5-flash-preview-tts');
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBeNull();
    const ours = (await res.json()) as typeof real;
    sameShape(ours, real);
    expect(ours.error.message).toBe(real.error.message);
  });

  test('the thinking and modality refusals, in the recorded wording', async () => {
    const thinking = fixtureText('gemini/tts-400-thinking-not-enabled.home-assistant-153408.txt');
    const modalities = fixtureText('gemini/tts-400-response-modalities-text.fabric-1607.txt');
    const post = (generationConfig: Json) =>
      fetch(`${sim.url}/v1beta/models/gemini-2.5-flash-preview-tts:generateContent`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': 'sim-key' },
        body: JSON.stringify({ contents: [{ parts: [{ text: 'Hello' }] }], generationConfig }),
      });
    const thought = (await (await post({ responseModalities: ['AUDIO'], thinkingConfig: { thinkingBudget: 0 } })).json()) as Json;
    // the log prints the body as a Python dict
    expect(thinking).toContain(JSON.stringify(thought).replace(/"/g, "'").replace(/,'/g, ", '").replace(/':/g, "': "));
    const text = (await (await post({ responseModalities: ['TEXT'] })).json()) as { error: { message: string } };
    expect(modalities.trim()).toBe(`googleapi: Error 400: ${text.error.message}`);
  });
});
