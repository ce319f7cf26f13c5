import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadCatalog } from '@relay/core';
import { startStack, type Stack } from './stack.js';

/**
 * The built-in speech model's vendor preview retires (catalog `retirement`): the public id keeps
 * answering through the successor, from the vendor's first 404 for the preview, or from a sunset
 * an operator set. Charged as usual, once.
 */
const PUBLIC_ID = 'vendor-2.5-flash-preview-tts';
const builtIn = loadCatalog({});
const { upstreamModel: PREVIEW, retirement } = builtIn.speechModels[PUBLIC_ID]!;
const SUCCESSOR = retirement!.successor;

const speak = (stack: Stack, key: string) =>
  fetch(`${stack.url}/v1beta/models/${PUBLIC_ID}:generateContent`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': key },
    body: JSON.stringify({
      contents: [{ parts: [{ text: 'The keeper lit the lamp at dusk.' }] }],
      generationConfig: { responseModalities: ['AUDIO'], imageConfig: {} },
    }),
  });
const say = (stack: Stack, key: string) =>
  fetch(`${stack.url}/v1/audio/speech`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: PUBLIC_ID, voice: 'alloy', input: 'Welcome aboard.', response_format: 'wav' }),
  });
const calls = async (stack: Stack) => (await stack.simCalls()).map((call) => [call.model, call.status]);
const settled = async (stack: Stack, accountId: string) =>
  (await stack.account(accountId)).ledger.filter((entry) => entry.type === 'settle' && entry.charged > 0).length;

describe('the vendor stops serving the preview', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
    // the built-in catalog sets no sunset (the vendor's dates could not be confirmed): its 404 decides
    expect(retirement?.sunset).toBeUndefined();
    expect(PREVIEW).not.toBe(SUCCESSOR);
  }, 60_000);
  afterAll(() => stack?.close());

  test("the vendor's 404 for the preview: the same call goes to the successor, and the worker remembers", async () => {
    const { key, accountId } = await stack.newKey();
    await fetch(`${stack.sim.url}/_sim/config`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ SIM_RETIRED_MODELS: PREVIEW }),
    });
    const res = await speak(stack, key);
    expect(res.status, await res.clone().text()).toBe(200);
    // the answer says the id's vendor model is deprecated, and which catalog model is on its successor
    expect(res.headers.get('deprecation')).toBe(`@${Date.parse(`${retirement!.since}T00:00:00Z`) / 1000}`);
    expect(res.headers.get('link')).toBe('</v1beta/models/vendor-3.8-flash-tts>; rel="successor-version"');
    expect(res.headers.get('sunset')).toBeNull();
    expect(await calls(stack)).toEqual([
      [PREVIEW, 404],
      [SUCCESSOR, 200],
    ]);
    // the next job, through the other door, goes straight to the successor: one 404 per worker, not per job
    const said = await say(stack, key);
    expect(said.status).toBe(200);
    expect(said.headers.get('link')).toBe('</v1/models/vendor-3.8-flash-tts>; rel="successor-version"');
    // the audio streams as it is made: the answer is whole (and charged) when its body ends
    expect((await said.arrayBuffer()).byteLength).toBeGreaterThan(44);
    expect((await calls(stack)).slice(2)).toEqual([[SUCCESSOR, 200]]);
    expect(await settled(stack, accountId)).toBe(2);
  });
});

describe('past a sunset an operator set', () => {
  let stack: Stack;
  beforeAll(async () => {
    const model = builtIn.speechModels[PUBLIC_ID]!;
    const catalog = { ...builtIn, speechModels: { [PUBLIC_ID]: { ...model, retirement: { ...model.retirement!, sunset: '2026-01-01' } } } };
    stack = await startStack({ catalog });
  }, 60_000);
  afterAll(() => stack?.close());

  test('every call goes to the successor, the preview is never asked, both doors answer', async () => {
    const { key } = await stack.newKey();
    expect((await speak(stack, key)).status).toBe(200);
    expect((await say(stack, key)).status).toBe(200);
    expect(await calls(stack)).toEqual([
      [SUCCESSOR, 200],
      [SUCCESSOR, 200],
    ]);
  });
});
