import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest';
import { client as clientOf, jsonl, lines, SPEECH_PATH, until, upload } from './batch-helpers.js';
import { startStack, type Stack } from './stack.js';
import { readZip } from './zip.js';

/** Speech batches, in Gemini's dialect and OpenAI's, as the official openai SDK drives them. */
let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 60_000);
afterAll(() => stack?.close());
beforeEach(async () => {
  await fetch(`${stack.sim.url}/_sim/reset`, { method: 'POST' });
});
const client = (balance?: number) => clientOf(stack, balance);

test('a speech batch: Gemini answers with the audio as a link, charged by the upstream usage', async () => {
  const { openai, accountId } = await client();
  const before = await stack.account(accountId);
  const speech = (text: string, voiceName = 'Kore') => ({
    contents: [{ parts: [{ text }] }],
    generationConfig: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName } } } },
  });
  const file = await upload(
    openai,
    jsonl(SPEECH_PATH, [
      { custom_id: 'hello', body: speech('Say warmly: hello there.') },
      { custom_id: 'bye', body: speech('Say softly: goodbye, and thank you for all the fish.', 'Puck') },
      { custom_id: 'no-such-voice', body: speech('Hi', 'Nobody') },
    ]),
  );
  const created = await openai.batches.create({
    input_file_id: file.id,
    endpoint: SPEECH_PATH as '/v1/completions',
    completion_window: '24h',
  });
  const batch = await until(openai, created.id);
  expect(batch).toMatchObject({ status: 'completed', request_counts: { total: 3, completed: 2, failed: 1 } });
  const output = await lines(openai, batch.output_file_id);
  let charged = 0;
  for (const line of output) {
    const body = line.response!.body as {
      candidates: Array<{ content: { parts: Array<{ fileData: { mimeType: string; fileUri: string } }> } }>;
      usageMetadata: { promptTokenCount: number; candidatesTokenCount: number };
    };
    const part = body.candidates[0]!.content.parts[0]!.fileData;
    expect(part.mimeType).toBe('audio/wav');
    const wav = Buffer.from(await (await fetch(part.fileUri)).arrayBuffer());
    expect(wav.subarray(0, 4).toString()).toBe('RIFF');
    charged += Math.ceil(body.usageMetadata.promptTokenCount / 2) + 10 * body.usageMetadata.candidatesTokenCount;
  }
  const [refused] = await lines(openai, batch.error_file_id);
  expect(refused).toMatchObject({
    custom_id: 'no-such-voice',
    response: { status_code: 400, body: { error: { status: 'INVALID_ARGUMENT', code: 400 } } },
  });
  const after = await stack.account(accountId);
  expect(before.balance - after.balance).toBe(charged);
  expect(after.reserved).toBe(0);
});

test("a speech batch in OpenAI's dialect (/v1/audio/speech): output lines link the encoded audio, charged by the upstream usage", async () => {
  const { openai, accountId, key } = await client();
  const before = await stack.account(accountId);
  const file = await upload(
    openai,
    jsonl('/v1/audio/speech', [
      { custom_id: 'intro', body: { model: 'tts-1', voice: 'alloy', input: 'Welcome aboard.', response_format: 'opus' } },
      { custom_id: 'outro', body: { model: 'tts-1', voice: 'onyx', input: 'Thank you for flying.', speed: 1.25 } },
      { custom_id: 'too-fast', body: { model: 'tts-1', voice: 'onyx', input: 'x', speed: 9 } },
    ]),
  );
  const created = await openai.batches.create({
    input_file_id: file.id,
    endpoint: '/v1/audio/speech' as '/v1/completions',
    completion_window: '24h',
  });
  const batch = await until(openai, created.id);
  expect(batch).toMatchObject({ status: 'completed', request_counts: { total: 3, completed: 2, failed: 1 } });
  const output = await lines(openai, batch.output_file_id);
  const types: Record<string, string> = {};
  let charged = 0;
  for (const line of output) {
    const body = line.response!.body as {
      object: string;
      url: string;
      content_type: string;
      usage: { input_tokens: number; output_tokens: number };
    };
    expect(body.object).toBe('audio.speech');
    const audio = await fetch(body.url);
    expect(audio.headers.get('content-type')).toBe(body.content_type);
    expect((await audio.arrayBuffer()).byteLength).toBeGreaterThan(100);
    types[line.custom_id] = body.content_type;
    // tts-1 means the built-in catalog's GA model: 0.5 a text token, 9 an audio token (micro-units)
    charged += Math.ceil(body.usage.input_tokens / 2) + 9 * body.usage.output_tokens;
  }
  expect(types).toEqual({ intro: 'audio/ogg; codecs=opus', outro: 'audio/mpeg' });
  // the archive holds the encoded files, as it holds WAVs and images
  const zip = await readZip(
    await (await fetch(`${stack.url}/v1/batches/${batch.id}/archive`, { headers: { authorization: `Bearer ${key}` } })).arrayBuffer(),
  );
  expect([...zip.keys()].sort()).toEqual(['files/intro/0.opus', 'files/outro/0.mp3', 'manifest.json']);
  const [refused] = await lines(openai, batch.error_file_id);
  expect(refused).toMatchObject({ custom_id: 'too-fast', response: { status_code: 400, body: { error: { param: 'speed' } } } });
  const after = await stack.account(accountId);
  expect(before.balance - after.balance).toBe(charged);
  expect(after.reserved).toBe(0);
});
