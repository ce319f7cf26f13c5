import { GoogleGenAI, Modality } from '@google/genai';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { probe } from './audio-probe.js';
import { startClientStack, type Stack } from './client-stack.js';

/**
 * @google/genai's `interactions.create` for speech against the relay, given only its base URL
 * and a key: the Interactions API's third door onto the same speech job.
 */
let stack: Stack;
let ai: GoogleGenAI;
beforeAll(async () => {
  stack = await startClientStack();
  const { key } = await stack.newKey();
  ai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: stack.url } });
}, 60_000);
afterAll(async () => stack?.close());

const TEXT = 'The keeper climbed the winding stairs at dusk and lit the great lamp for the ships.';
const STYLE = 'Speak warmly, like a storyteller';

/** The same words through generateContent: how long the clip is, in seconds of 24 kHz 16-bit PCM. */
async function generateContentSeconds(model: string) {
  const response = await ai.models.generateContent({
    model,
    contents: TEXT,
    config: { responseModalities: [Modality.AUDIO], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } } },
  });
  const pcm = Buffer.from(response.candidates![0]!.content!.parts![0]!.inlineData!.data!, 'base64');
  return pcm.length / 2 / 24_000;
}

/** The SDK's error, its HTTP status and the Google error body it carries. */
const refusalOf = (error: unknown) => {
  const { status, body } = error as { status: number; body: string };
  return { status, error: (JSON.parse(body) as { error: { code: number; status: string; message: string } }).error };
};

// the 3.8 model streams a second of audio a piece; the 2.5 preview speaks the clip in one
describe.each([
  ['vendor-3.8-flash-tts', 'several pieces'],
  ['vendor-2.5-flash-preview-tts', 'one piece'],
])('interactions.create on %s (%s)', (model, pieces) => {
  test('the Interaction holds the clip as a WAV as long as the same words through generateContent, with its usage', async () => {
    const interaction = await ai.interactions.create({
      model,
      input: TEXT,
      response_format: { type: 'audio' },
      generation_config: { speech_config: [{ voice: 'kore' }] },
    });
    expect(interaction).toMatchObject({ status: 'completed', model, id: expect.stringMatching(/^tts_/) });
    const audio = interaction.output_audio!;
    expect(audio).toMatchObject({ type: 'audio', mime_type: 'audio/wav', sample_rate: 24_000, channels: 1 });
    const found = probe(Buffer.from(audio.data!, 'base64'));
    expect(found).toMatchObject({ container: 'wav', codec: 'pcm_s16le', sampleRate: 24_000, channels: 1 });
    const expected = await generateContentSeconds(model);
    expect(expected).toBeGreaterThan(2);
    expect(Math.abs(found.durationS - expected) / expected).toBeLessThan(0.05);
    expect(interaction.usage).toMatchObject({ total_input_tokens: expect.any(Number), total_tokens: expect.any(Number) });
    expect(interaction.usage!.total_output_tokens).toBeGreaterThan(0);
  });

  test('stream: true, read through the SDK: created, the audio as step.delta events while it is spoken, the end with usage', async () => {
    const stream = await ai.interactions.create({
      model,
      input: [{ type: 'text', text: TEXT, annotations: [{ type: 'speech_metadata', style: STYLE }] }],
      response_format: { type: 'audio' },
      generation_config: { speech_config: [{ voice: 'Puck' }] },
      stream: true,
    });
    const events = [];
    for await (const event of stream) events.push(event);
    const types = events.map((event) => event.event_type);
    expect(types.slice(0, 2)).toEqual(['interaction.created', 'step.start']);
    expect(types.slice(-2)).toEqual(['step.stop', 'interaction.completed']);
    const deltas = events.flatMap((event) => (event.event_type === 'step.delta' && event.delta.type === 'audio' ? [event.delta] : []));
    expect(deltas.length).toBe(types.length - 4);
    if (pieces === 'one piece') expect(deltas).toHaveLength(1);
    else expect(deltas.length).toBeGreaterThan(1);
    const wav = Buffer.concat(deltas.map((delta) => Buffer.from(delta.data!, 'base64')));
    const found = probe(wav);
    expect(found).toMatchObject({ container: 'wav', codec: 'pcm_s16le', sampleRate: 24_000, channels: 1 });
    const expected = await generateContentSeconds(model);
    expect(Math.abs(found.durationS - expected) / expected).toBeLessThan(0.05);
    const completed = events.at(-1)!;
    expect(completed.event_type === 'interaction.completed' && completed.interaction).toMatchObject({
      status: 'completed',
      usage: { total_output_tokens: expect.any(Number) },
    });
  });
});

test('a speech_metadata style reaches the 3.8 model as speechMetadata.style: read, not spoken', async () => {
  const model = 'vendor-3.8-flash-tts';
  const speak = async (annotations: Array<{ type: 'speech_metadata'; style: string }>) => {
    const interaction = await ai.interactions.create({ model, input: [{ type: 'text', text: TEXT, annotations }] });
    return probe(Buffer.from(interaction.output_audio!.data!, 'base64')).durationS;
  };
  const plain = await speak([]);
  expect((await stack.simCalls()).at(-1)!.styles).toEqual([]);
  const styled = await speak([{ type: 'speech_metadata', style: STYLE }]);
  expect((await stack.simCalls()).at(-1)!.styles).toEqual([STYLE]);
  expect(Math.abs(styled - plain)).toBeLessThan(0.05);
});

test('mp3 and a link: response_format picks the encoding and the delivery', async () => {
  const mp3 = await ai.interactions.create({
    model: 'vendor-3.8-flash-tts',
    input: TEXT,
    response_format: { type: 'audio', mime_type: 'audio/mp3', delivery: 'uri' },
  });
  const { uri, mime_type: mimeType } = mp3.output_audio!;
  expect(mimeType).toBe('audio/mp3');
  const file = await fetch(uri!);
  expect(probe(Buffer.from(await file.arrayBuffer()))).toMatchObject({ codec: 'mp3', channels: 1 });
});

test("bad input is the SDK's error with Google's status: an unknown field (400), an unknown model (404)", async () => {
  const unknownField = await ai.interactions
    .create({ model: 'vendor-3.8-flash-tts', input: TEXT, system_instruction: 'Be brief' })
    .catch((error: unknown) => error);
  expect(refusalOf(unknownField)).toMatchObject({
    status: 400,
    error: { code: 400, status: 'INVALID_ARGUMENT', message: expect.stringContaining('system_instruction') },
  });
  const unknownModel = await ai.interactions.create({ model: 'gemini-9-ultra-tts', input: TEXT }).catch((error: unknown) => error);
  expect(refusalOf(unknownModel)).toMatchObject({
    status: 404,
    error: { code: 404, status: 'NOT_FOUND', message: expect.stringContaining('models/gemini-9-ultra-tts is not found') },
  });
});
