import { afterAll, beforeAll, expect, test } from 'vitest';
import { postJson, startStack, type Stack } from './stack.js';

let stack: Stack;
let key: string;
beforeAll(async () => {
  stack = await startStack();
  ({ key } = await stack.newKey());
}, 60_000);
afterAll(async () => stack?.close());

const SPEECH = 'vendor-2.5-flash-preview-tts';
const get = (path: string, headers: Record<string, string> = {}) => fetch(`${stack.url}${path}`, { headers });
const bearer = () => ({ authorization: `Bearer ${key}` });
const goog = () => ({ 'x-goog-api-key': key });

test('GET /v1/models: OpenAI shape for a Bearer caller, Gemini shape for a Google credential', async () => {
  const openai = (await (await get('/v1/models', bearer())).json()) as {
    object: string;
    data: Array<{ id: string; object: string; created: number }>;
  };
  expect(openai.object).toBe('list');
  expect(openai.data.map((m) => m.id)).toEqual(expect.arrayContaining(['vendor-gen-3-0-t2i-250415', SPEECH]));
  expect(openai.data.find((m) => m.id === 'vendor-gen-3-0-t2i-250415')).toEqual({
    id: 'vendor-gen-3-0-t2i-250415',
    object: 'model',
    created: Date.UTC(2025, 3, 15) / 1000,
    owned_by: 'relay',
  });
  // a speech model names its voices, the GA ones too
  for (const id of [SPEECH, 'vendor-3.8-flash-tts', 'vendor-3.8-flash-lite-tts']) {
    expect(openai.data.find((m) => m.id === id)).toMatchObject({ voices: expect.arrayContaining(['Kore', 'Puck', 'Zephyr']) });
  }

  for (const [path, headers] of [
    ['/v1/models', goog()],
    [`/v1/models?key=${key}`, {}],
    ['/v1beta/models', bearer()],
    ['/v1alpha/models', goog()],
  ] as const) {
    const res = await get(path, headers);
    expect(res.status, path).toBe(200);
    // the speech models only, the GA 3.8 ones beside the SPEC's id
    expect(await res.json()).toEqual({
      models: [SPEECH, 'vendor-3.8-flash-tts', 'vendor-3.8-flash-lite-tts'].map((id) =>
        expect.objectContaining({ name: `models/${id}`, supportedGenerationMethods: expect.any(Array) }),
      ),
    });
  }
});

test('GET /v1/models/{id}: each dialect finds its models and answers 404 in its own shape', async () => {
  expect(await (await get('/v1/models/vendor-gen-5-0-260128', bearer())).json()).toMatchObject({
    id: 'vendor-gen-5-0-260128',
    object: 'model',
  });
  expect(await (await get(`/v1/models/${SPEECH}`, goog())).json()).toMatchObject({ name: `models/${SPEECH}`, outputTokenLimit: 16384 });

  const openai404 = await get('/v1/models/constructor', bearer());
  expect(openai404.status).toBe(404);
  expect(await openai404.json()).toMatchObject({ error: { type: 'not_found_error', param: 'model' } });
  for (const [path, headers] of [
    ['/v1/models/vendor-gen-5-0-260128', goog()],
    ['/v1beta/models/toString', goog()],
    ['/v1alpha/models/nope', bearer()],
  ] as const) {
    const res = await get(path, headers);
    expect(res.status, path).toBe(404);
    expect(await res.json(), path).toMatchObject({ error: { code: 404, status: 'NOT_FOUND' } });
  }
});

test('an unknown route under a Google path is a 404 in Google shape; under /v1 the credential decides', async () => {
  for (const [path, headers] of [
    ['/v1beta/files', goog()],
    ['/v1alpha/anything', {}],
    ['/v1/cachedContents', goog()],
  ] as const) {
    const res = await get(path, headers);
    expect(res.status, path).toBe(404);
    expect(await res.json(), path).toMatchObject({ error: { code: 404, status: 'NOT_FOUND' } });
  }
  expect(await (await get('/v1/nothing', bearer())).json()).toMatchObject({ error: { type: 'not_found_error', code: 'not_found' } });
  const action = await postJson(`${stack.url}/v1/models/${SPEECH}:embedContent`, {}, undefined, goog());
  expect(action.status).toBe(404);
  expect(await action.json()).toMatchObject({ error: { status: 'NOT_FOUND' } });
});

test(':countTokens estimates Gemini tokens under every version, says it is an estimate, is free, and refuses bad bodies in Google shape', async () => {
  const text = 'Hello there, general Kenobi.';
  for (const version of ['v1', 'v1beta', 'v1alpha']) {
    const res = await postJson(
      `${stack.url}/${version}/models/${SPEECH}:countTokens`,
      { contents: [{ parts: [{ text }] }] },
      undefined,
      goog(),
    );
    expect(res.headers.get('relay-token-count')).toMatch(/^estimate; /);
    // 28 characters: 7 tokens, not the 28 a character count said
    expect(await res.json(), version).toEqual({ totalTokens: 7, promptTokensDetails: [{ modality: 'TEXT', tokenCount: 7 }] });
  }
  const whole = await postJson(
    `${stack.url}/v1beta/models/${SPEECH}:countTokens`,
    { generateContentRequest: { model: `models/${SPEECH}`, contents: [{ parts: [{ text: 'a' }, { text: 'b' }] }] } },
    undefined,
    goog(),
  );
  expect(await whole.json()).toMatchObject({ totalTokens: 1 });
  // other scripts take about a token a character
  const cjk = await postJson(
    `${stack.url}/v1beta/models/${SPEECH}:countTokens`,
    { contents: [{ parts: [{ text: '你好世界' }] }] },
    undefined,
    goog(),
  );
  expect(await cjk.json()).toMatchObject({ totalTokens: 4 });

  for (const body of [{}, { contents: [{ parts: [{ text: 'x' }] }], extra: 1 }, { contents: 'x' }]) {
    const res = await postJson(`${stack.url}/v1/models/${SPEECH}:countTokens`, body, undefined, goog());
    expect(res.status, JSON.stringify(body)).toBe(400);
    expect(await res.json()).toMatchObject({ error: { status: 'INVALID_ARGUMENT' } });
  }
  const imageModel = await postJson(`${stack.url}/v1/models/vendor-gen-5-0-260128:countTokens`, { contents: [] }, undefined, goog());
  expect(imageModel.status).toBe(404);
  expect((await stack.simStats()).requests.speech).toBe(0);
});

test('listings need a key, and a bad page token is a 400', async () => {
  expect((await get('/v1/models')).status).toBe(401);
  const google401 = await get('/v1beta/models');
  expect(google401.status).toBe(401);
  expect(await google401.json()).toMatchObject({ error: { status: 'UNAUTHENTICATED' } });
  const badToken = await get('/v1beta/models?pageToken=bogus', goog());
  expect(badToken.status).toBe(400);
  expect(await badToken.json()).toMatchObject({ error: { status: 'INVALID_ARGUMENT' } });
});
