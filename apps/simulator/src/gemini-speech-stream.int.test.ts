import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadSimulatorConfig } from './config.js';
import { startSimulator, type RunningSimulator } from './server.js';
import { queueFault } from './sim.test-support.js';

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator(loadSimulatorConfig({ SIM_PORT: '0' }));
});
afterAll(async () => sim?.close());

// about 4 s of speech: four events of a second on a 3.x model
const TEXT = 'The keeper climbed the stairs and lit the lamp at dusk.';
const speak = (path: string) =>
  fetch(`${sim.url}/v1beta/models/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': 'sim-key' },
    body: JSON.stringify({
      contents: [{ parts: [{ text: TEXT }] }],
      generationConfig: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } } },
    }),
  });

interface Piece {
  candidates: Array<{ content: { parts: Array<{ inlineData: { data: string } }> }; finishReason?: string }>;
  usageMetadata?: { candidatesTokenCount: number };
}
const audioOf = (pieces: Piece[]) =>
  Buffer.concat(pieces.map((p) => Buffer.from(p.candidates[0]!.content.parts[0]!.inlineData.data, 'base64')));
const eventsIn = (text: string) =>
  text
    .split('\r\n\r\n')
    .filter(Boolean)
    .map((event) => JSON.parse(event.replace(/^data: /, '')) as Piece);

describe('streamGenerateContent on a 3.x model: the clip as it is spoken', () => {
  test('alt=sse: a second of audio an event, the finish and usage with the last; the same audio as the whole answer', async () => {
    const whole = (await (await speak('gemini-3.8-flash-tts:generateContent')).json()) as Piece;
    const events = eventsIn(await (await speak('gemini-3.8-flash-tts:streamGenerateContent?alt=sse')).text());
    expect(events.length).toBe(Math.ceil(audioOf([whole]).length / 48_000));
    expect(events.length).toBeGreaterThan(2);
    expect(audioOf(events).equals(audioOf([whole]))).toBe(true);
    expect(events.slice(0, -1).every((e) => e.usageMetadata === undefined && e.candidates[0]!.finishReason === undefined)).toBe(true);
    expect(events.at(-1)!.candidates[0]!.finishReason).toBe('STOP');
    expect(events.at(-1)!.usageMetadata).toEqual(whole.usageMetadata);
  });

  test('without alt=sse: a JSON array of the same pieces', async () => {
    const res = await speak('gemini-3.8-flash-tts:streamGenerateContent');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const pieces = (await res.json()) as Piece[];
    expect(pieces.length).toBeGreaterThan(2);
    expect(pieces.at(-1)!.usageMetadata).toBeDefined();
  });

  test('the 2.5 preview sends its clip as one event', async () => {
    expect(eventsIn(await (await speak('gemini-2.5-flash-preview-tts:streamGenerateContent?alt=sse')).text())).toHaveLength(1);
  });

  test('stream-hold: the first chunks are out while the rest waits for the release', async () => {
    await queueFault(sim.url, { type: 'stream-hold', api: 'speech', after: 1 });
    const res = await speak('gemini-3.8-flash-tts:streamGenerateContent?alt=sse');
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('\r\n\r\n')) text += new TextDecoder().decode((await reader.read()).value);
    expect(sim.ctx.faults.holding).toBe(1);
    expect(eventsIn(text)).toHaveLength(1);
    expect(sim.ctx.faults.release()).toBe(1);
    for (let step = await reader.read(); !step.done; step = await reader.read()) text += new TextDecoder().decode(step.value);
    expect(eventsIn(text).at(-1)!.candidates[0]!.finishReason).toBe('STOP');
  });

  test('stream-drop: the connection is cut after the chunks named', async () => {
    await queueFault(sim.url, { type: 'stream-drop', api: 'speech', after: 2 });
    const res = await speak('gemini-3.8-flash-tts:streamGenerateContent?alt=sse');
    const read = res.text();
    await expect(read).rejects.toThrow();
  });
});
