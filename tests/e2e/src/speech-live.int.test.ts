import { afterAll, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest';
import { GEMINI_VOICES, loadCatalog } from '@relay/core';
import { readWav } from '@relay/jobs';
import { decodedSeconds } from './decoded-seconds.js';
import { startStack, type Stack } from './stack.js';

/**
 * Speech answered while it is spoken: the vendor streams the clip (a 3.8 model, a second of audio
 * an event), the worker passes each piece through the queue's parts stream, and the api sends it
 * at once. "Before the rest is made" is proved by the simulator holding the vendor's stream after
 * its first piece: the client reads audio while the vendor has surely not finished.
 */
const MODEL = 'vendor-3.8-flash-tts';
const builtIn = loadCatalog({});
const catalog = {
  ...builtIn,
  speechModels: {
    [MODEL]: {
      upstream: 'gemini',
      upstreamModel: 'gemini-3.8-flash-tts',
      price: { inputPerMillion: 1_000_000, outputPerMillion: 20_000_000 },
      voices: GEMINI_VOICES,
      defaultVoice: 'Kore',
    },
  },
};

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ catalog });
}, 60_000);
afterAll(() => stack?.close());
beforeEach(async () => {
  await fetch(`${stack.sim.url}/_sim/reset`, { method: 'POST' });
});

// about six seconds of speech: six pieces from the vendor
const TEXT = 'The keeper climbed the winding stairs at dusk and lit the great lamp for the ships.';
const post = (path: string, key: string, body: unknown, headers: Record<string, string>, signal?: AbortSignal) =>
  fetch(`${stack.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
const gemini = (key: string) =>
  post(
    `/v1beta/models/${MODEL}:streamGenerateContent?alt=sse`,
    key,
    {
      contents: [{ parts: [{ text: TEXT }] }],
      generationConfig: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Puck' } } } },
    },
    { 'x-goog-api-key': key },
  );
const openai = (key: string, body: Record<string, unknown>, signal?: AbortSignal) =>
  post('/v1/audio/speech', key, { model: MODEL, voice: 'alloy', input: TEXT, ...body }, { authorization: `Bearer ${key}` }, signal);

/** Reads a body piece by piece: what arrived so far, and the rest on demand. */
function reader(res: Response) {
  const body = res.body!.getReader();
  const chunks: Buffer[] = [];
  return {
    chunks,
    async next() {
      const step = await body.read();
      if (!step.done) chunks.push(Buffer.from(step.value));
      return !step.done;
    },
    async rest() {
      while (await this.next());
      return Buffer.concat(chunks);
    },
    text: () => Buffer.concat(chunks).toString(),
  };
}

const holding = async () => (await stack.simStats()).holding;
const charges = async (accountId: string) => (await stack.account(accountId)).ledger.filter((entry) => entry.type === 'settle');
/** The finished job a streamed answer is for (its Location), as its endpoint answers it: the stored audio. */
const storedOf = (res: Response, key: string) =>
  fetch(`${stack.url}${res.headers.get('location')!}`, { headers: { authorization: `Bearer ${key}` } });

interface Piece {
  candidates: Array<{ content: { parts: Array<{ inlineData: { mimeType: string; data: string } }> }; finishReason?: string }>;
  usageMetadata?: { candidatesTokenCount: number };
}
const eventsIn = (text: string) =>
  text
    .split('\r\n\r\n')
    .filter(Boolean)
    .map((event) => JSON.parse(event.replace(/^data: /, '')) as Piece);

describe('Gemini streamGenerateContent?alt=sse', () => {
  test('the first second is heard while the vendor still speaks; the pieces join into the stored clip, charged once', async () => {
    const { key, accountId } = await stack.newKey();
    await stack.fault({ type: 'stream-hold', api: 'speech', after: 1 });
    const res = await gemini(key);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const body = reader(res);
    while (!body.text().includes('\r\n\r\n')) expect(await body.next()).toBe(true);
    // the vendor holds the rest of the clip: this audio came before it was made
    expect(await holding()).toBe(1);
    const first = eventsIn(body.text())[0]!;
    expect(first.candidates[0]!.content.parts[0]!.inlineData.mimeType).toMatch(/^audio\/L16/i);
    expect(Buffer.from(first.candidates[0]!.content.parts[0]!.inlineData.data, 'base64').length).toBe(48_000);
    expect(await stack.release()).toBe(1);

    const events = eventsIn((await body.rest()).toString());
    expect(events.length).toBeGreaterThan(4);
    const end = events.at(-1)!;
    expect(end.candidates[0]!.finishReason).toBe('STOP');
    const audio = Buffer.concat(events.slice(0, -1).map((e) => Buffer.from(e.candidates[0]!.content.parts[0]!.inlineData.data, 'base64')));
    const stored = readWav(Buffer.from(await (await fetch(res.headers.get('x-relay-audio-url')!)).arrayBuffer()))!;
    expect(stored.pcm.equals(audio)).toBe(true);
    expect(end.usageMetadata!.candidatesTokenCount).toBe(Math.round((audio.length / 48_000) * 25));
    expect(await charges(accountId)).toHaveLength(1);
  });
});

describe("OpenAI's /v1/audio/speech", () => {
  test.each(['mp3', 'opus', 'aac', 'wav', 'pcm'])(
    '%s: the first bytes arrive while the vendor still speaks, and the whole answer decodes to the clip',
    async (format) => {
      const { key, accountId } = await stack.newKey();
      await stack.fault({ type: 'stream-hold', api: 'speech', after: 1 });
      const res = await openai(key, { response_format: format });
      expect(res.status).toBe(200);
      const body = reader(res);
      expect(await body.next()).toBe(true);
      expect(body.chunks[0]!.length).toBeGreaterThan(0);
      expect(await holding()).toBe(1);
      await stack.release();
      const bytes = await body.rest();
      const stored = Buffer.from(await (await storedOf(res, key)).arrayBuffer());
      const seconds = decodedSeconds(bytes, format === 'pcm');
      expect(Math.abs(seconds - decodedSeconds(stored, format === 'pcm'))).toBeLessThan(0.1);
      expect(seconds).toBeGreaterThan(4);
      expect(await charges(accountId)).toHaveLength(1);
    },
  );

  test('stream_format sse: speech.audio.delta events as the clip is spoken, then speech.audio.done with the usage', async () => {
    const { key } = await stack.newKey();
    await stack.fault({ type: 'stream-hold', api: 'speech', after: 1 });
    const res = await openai(key, { response_format: 'mp3', stream_format: 'sse' });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const body = reader(res);
    while (!body.text().includes('\n\n')) expect(await body.next()).toBe(true);
    expect(body.text()).toMatch(/^event: speech\.audio\.delta\ndata: \{"type":"speech\.audio\.delta","audio":"/);
    expect(await holding()).toBe(1);
    await stack.release();
    const events = (await body.rest())
      .toString()
      .split('\n\n')
      .filter(Boolean)
      .map((event) => JSON.parse(event.split('\ndata: ')[1]!) as { type: string; audio?: string; usage?: { output_tokens: number } });
    expect(events.at(-1)!.type).toBe('speech.audio.done');
    expect(events.at(-1)!.usage!.output_tokens).toBeGreaterThan(100);
    const audio = Buffer.concat(events.filter((e) => e.audio).map((e) => Buffer.from(e.audio!, 'base64')));
    expect(decodedSeconds(audio, false)).toBeGreaterThan(4);
  });

  test('a client that leaves mid-stream loses nothing it paid for: the clip is finished, stored and charged once', async () => {
    const { key, accountId } = await stack.newKey();
    await stack.fault({ type: 'stream-hold', api: 'speech', after: 1 });
    const leave = new AbortController();
    const res = await openai(key, { response_format: 'mp3' }, leave.signal);
    expect(await reader(res).next()).toBe(true);
    leave.abort();
    await stack.release();
    // the job goes on without its caller: its answer is there once it is done
    const stored = await vi.waitFor(
      async () => {
        const answer = await storedOf(res, key);
        expect(answer.status).toBe(200);
        return answer;
      },
      { timeout: 30_000, interval: 100 },
    );
    expect(decodedSeconds(Buffer.from(await stored.arrayBuffer()), false)).toBeGreaterThan(4);
    expect(await charges(accountId)).toHaveLength(1);
  });

  test('a vendor stream cut after audio went out: the events end in an error, and nothing is charged', async () => {
    const { key, accountId } = await stack.newKey();
    await stack.fault({ type: 'stream-drop', api: 'speech', after: 2 });
    const res = await openai(key, { stream_format: 'sse' });
    expect(res.status).toBe(200);
    const text = (await reader(res).rest()).toString();
    expect(text).toMatch(/event: speech\.audio\.delta/);
    expect(text).toMatch(
      /event: error\ndata: \{"type":"error","error":\{"message":"the speech stream stopped after \d+\.\d s of audio went out/,
    );
    expect(await charges(accountId)).toHaveLength(0);
    // one call: audio already went out, so the clip is not asked again
    expect((await stack.simStats()).requests.speech).toBe(1);
  });

  test('a failure before any audio is answered as any other: a status and an error body, not a 200', async () => {
    const { key } = await stack.newKey();
    await stack.fault({ type: 'error', api: 'speech', status: 500, times: 10 });
    const res = await openai(key, { response_format: 'mp3' });
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ error: { message: expect.stringMatching(/^upstream failed after (\d) of \1 attempts/) } });
  });

  test('flac comes whole (its header needs the sample count): the same clip, decodable', async () => {
    const { key } = await stack.newKey();
    const res = await openai(key, { response_format: 'flac' });
    expect(res.headers.get('content-type')).toBe('audio/flac');
    expect(decodedSeconds(Buffer.from(await res.arrayBuffer()), false)).toBeGreaterThan(4);
  });
});

describe('style apart from the words (Gemini speechMetadata) on a model that reads verbatim', () => {
  const seconds = async (res: Response) => {
    expect(res.status).toBe(200);
    return decodedSeconds(Buffer.from(await res.arrayBuffer()), false);
  };

  test("OpenAI's instructions reach 3.8 as speechMetadata.style: read, not spoken (the clip is as long as without them)", async () => {
    const { key } = await stack.newKey();
    const plain = await seconds(await openai(key, { response_format: 'wav' }));
    const styled = await seconds(await openai(key, { response_format: 'wav', instructions: 'Speak warmly, like a storyteller.' }));
    expect((await stack.simCalls()).map((call) => call.styles)).toEqual([[], ['Speak warmly, like a storyteller']]);
    expect(Math.abs(styled - plain)).toBeLessThan(0.05);
  });

  test("Gemini's door takes speechMetadata on a part and passes it on; a speaker no voice config names is a 400 naming the field", async () => {
    const { key } = await stack.newKey();
    const speak = (parts: unknown[]) =>
      post(
        `/v1beta/models/${MODEL}:generateContent`,
        key,
        {
          contents: [{ parts }],
          generationConfig: {
            responseModalities: ['AUDIO'],
            speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Puck' } } },
          },
        },
        { 'x-goog-api-key': key },
      );
    const ok = await speak([{ text: TEXT, speechMetadata: { style: 'cheerful' } }]);
    expect(ok.status).toBe(200);
    expect((await stack.simCalls()).at(-1)!.styles).toEqual(['cheerful']);
    const refused = await speak([{ text: TEXT, speechMetadata: { speaker: 'Joe' } }]);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({
      error: {
        status: 'INVALID_ARGUMENT',
        details: [{ fieldViolations: [{ field: 'contents[0].parts[0].speech_metadata.speaker' }] }],
      },
    });
  });
});
