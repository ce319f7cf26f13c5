import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import { createOpenAI } from '@ai-sdk/openai';
import { generateSpeech } from 'ai';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { repoRoot } from '@relay/testkit';
import { probe } from './audio-probe.js';
import { startClientStack, type Stack } from './client-stack.js';

let stack: Stack;
let client: OpenAI;
let key: string;
let accountId: string;
beforeAll(async () => {
  stack = await startClientStack();
  ({ key, accountId } = await stack.newKey());
  client = new OpenAI({ baseURL: `${stack.url}/v1`, apiKey: key, maxRetries: 0 });
}, 60_000);
afterAll(async () => stack?.close());

const TEXT = 'The lighthouse keeper climbed the stairs at dusk and lit the lamp for the ships.';
const bytesOf = async (response: Response) => Buffer.from(await response.arrayBuffer());

describe('openai SDK: audio.speech.create', () => {
  const expected = {
    mp3: { container: 'mp3', codec: 'mp3', type: 'audio/mpeg' },
    opus: { container: 'ogg', codec: 'opus', type: 'audio/ogg; codecs=opus' },
    aac: { container: 'aac', codec: 'aac', type: 'audio/aac' },
    flac: { container: 'flac', codec: 'flac', type: 'audio/flac' },
    wav: { container: 'wav', codec: 'pcm_s16le', type: 'audio/wav' },
    pcm: { container: 's16le', codec: 'pcm_s16le', type: 'audio/pcm' },
  } as const;
  const durations: Record<string, number> = {};

  for (const [format, want] of Object.entries(expected)) {
    test(`response_format ${format}: a real ${want.codec} file, mono, as long as the speech`, async () => {
      const response = await client.audio.speech.create({
        model: 'tts-1',
        voice: 'alloy',
        input: TEXT,
        response_format: format as keyof typeof expected,
      });
      expect(response.headers.get('content-type')).toBe(want.type);
      const found = probe(await bytesOf(response), format === 'pcm');
      expect(found).toMatchObject({ container: expect.stringContaining(want.container), codec: want.codec, channels: 1 });
      durations[format] = found.durationS;
      expect(found.durationS).toBeGreaterThan(1);
    });
  }

  test('every format holds the same speech: durations agree within 5%', () => {
    const all = Object.values(durations);
    expect(all).toHaveLength(6);
    expect(Math.max(...all) / Math.min(...all)).toBeLessThan(1.05);
  });

  test('mp3 is the default, and speed 2 halves the duration (tempo, not pitch: the encoder tests hold the pitch)', async () => {
    const normal = await client.audio.speech.create({ model: 'tts-1', voice: 'nova', input: TEXT });
    expect(normal.headers.get('content-type')).toBe('audio/mpeg');
    const fast = await client.audio.speech.create({ model: 'tts-1', voice: 'nova', input: TEXT, speed: 2 });
    const ratio = probe(await bytesOf(fast)).durationS / probe(await bytesOf(normal)).durationS;
    expect(ratio).toBeGreaterThan(0.45);
    expect(ratio).toBeLessThan(0.56);
  });

  test('stream_format sse: speech.audio.delta events whose audio joins into the file, then speech.audio.done with usage', async () => {
    const response = await client.audio.speech.create({ model: 'tts-1', voice: 'coral', input: TEXT, stream_format: 'sse' });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = (await response.text())
      .split('\n\n')
      .filter(Boolean)
      .map(
        (block) =>
          JSON.parse(
            block
              .split('\n')
              .find((line) => line.startsWith('data: '))!
              .slice(6),
          ) as Record<string, unknown>,
      );
    const deltas = events.filter((e) => e.type === 'speech.audio.delta');
    expect(deltas.length).toBeGreaterThan(1);
    expect(events.at(-1)).toMatchObject({
      type: 'speech.audio.done',
      usage: { input_tokens: expect.any(Number), output_tokens: expect.any(Number), total_tokens: expect.any(Number) },
    });
    const audio = Buffer.concat(deltas.map((e) => Buffer.from(e.audio as string, 'base64')));
    expect(probe(audio)).toMatchObject({ codec: 'mp3', channels: 1 });
  });

  test('instructions reach the upstream as style direction in front of the text (more input tokens), with a Gemini voice', async () => {
    const inputTokens = async (instructions?: string) => {
      const response = await client.audio.speech.create({
        model: 'vendor-2.5-flash-preview-tts',
        voice: 'Kore',
        input: TEXT,
        stream_format: 'sse',
        ...(instructions ? { instructions } : {}),
      });
      const done = (await response.text()).split('\n\n').filter(Boolean).at(-1)!;
      return (
        JSON.parse(
          done
            .split('\n')
            .find((line) => line.startsWith('data: '))!
            .slice(6),
        ) as { usage: { input_tokens: number } }
      ).usage.input_tokens;
    };
    const before = await stack.account(accountId);
    expect(await inputTokens('Speak slowly, in a calm voice')).toBeGreaterThan(await inputTokens());
    const after = await stack.account(accountId);
    expect(before.balance - after.balance).toBeGreaterThan(0);
    expect(after.reserved).toBe(0);
  });

  test('two speakers (the relay extension) in one clip', async () => {
    const response = await client.audio.speech.create({
      model: 'tts-1',
      voice: 'alloy',
      input: 'Joe: Is the lamp lit?\nJane: Since dusk.',
      response_format: 'flac',
      // @ts-expect-error the relay's extension, sent in the body as any extra field
      speakers: [
        { name: 'Joe', voice: 'onyx' },
        { name: 'Jane', voice: 'shimmer' },
      ],
    });
    expect(probe(await bytesOf(response)).codec).toBe('flac');
  });
});

describe('errors in OpenAI shape, before anything is held', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['an unknown model', { model: 'tts-9', voice: 'alloy', input: 'x' }, 'model'],
    ['an empty input', { model: 'tts-1', voice: 'alloy', input: '   ' }, 'input'],
    ['a speed out of range', { model: 'tts-1', voice: 'alloy', input: 'x', speed: 5 }, 'speed'],
    ['an unknown format', { model: 'tts-1', voice: 'alloy', input: 'x', response_format: 'ogg' }, 'response_format'],
    ['an unknown voice', { model: 'tts-1', voice: 'baritone', input: 'x' }, 'voice'],
    ['a custom voice', { model: 'tts-1', voice: { id: 'voice_1' }, input: 'x' }, 'voice'],
    ['three speakers', { model: 'tts-1', input: 'x', speakers: [1, 2, 3].map((i) => ({ name: `s${i}`, voice: 'alloy' })) }, 'speakers'],
    ['a field OpenAI does not have', { model: 'tts-1', voice: 'alloy', input: 'x', pitch: 2 }, 'pitch'],
  ];
  for (const [what, body, param] of cases) {
    test(what, async () => {
      const error = await client.audio.speech.create(body as never).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe(param);
    });
  }
  test('nothing was reserved or charged for any of them', async () => {
    const { reserved } = await stack.account(accountId);
    expect(reserved).toBe(0);
  });
});

/** The AI SDK's speech call as docs/clients.md shows it: `generateSpeech`, ai 7's stable name (the experimental_ one is deprecated). */
test("the AI SDK's generateSpeech through @ai-sdk/openai", async () => {
  const openai = createOpenAI({ baseURL: `${stack.url}/v1`, apiKey: key });
  const result = await generateSpeech({ model: openai.speech('tts-1'), text: TEXT, voice: 'echo', outputFormat: 'opus', speed: 1.5 });
  const audio = Buffer.from(result.audio.uint8Array);
  expect(probe(audio)).toMatchObject({ codec: 'opus', channels: 1 });
});

test("docs/clients.md shows that call, by the AI SDK's current name", () => {
  const doc = readFileSync(join(repoRoot, 'docs/clients.md'), 'utf8');
  expect(doc).toContain("import { generateSpeech } from 'ai';");
  expect(doc).toContain(
    "generateSpeech({ model: openai.speech('tts-1'), text: 'Hello.', voice: 'echo', outputFormat: 'opus', speed: 1.5 })",
  );
  expect(doc).not.toMatch(/experimental_generateSpeech[({]/);
});
