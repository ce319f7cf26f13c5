import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createLinkSigner } from './ark/links.js';
import { loadSimulatorConfig } from './config.js';
import { imageDimensions } from '@relay/core';
import { startSimulator, type RunningSimulator } from './server.js';

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator(loadSimulatorConfig({ SIM_PORT: '0', SIM_URL_TTL_SECONDS: '600', SIM_MAX_IPM: '0' }));
});
afterAll(async () => sim?.close());

const ark = (body: unknown, key: string | null = 'sim-key') =>
  fetch(`${sim.url}/api/v3/images/generations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify(body),
  });
const gemini = (body: unknown, headers: Record<string, string>, path = 'gemini-2.5-flash-preview-tts:generateContent') =>
  fetch(`${sim.url}/v1beta/models/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
const fault = (f: unknown) =>
  fetch(`${sim.url}/_sim/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(f) });

describe('Ark images', () => {
  test('missing key: 401 AuthenticationError with request id headers', async () => {
    const res = await ark({ model: 'seedream-5-0-260128', prompt: 'x' }, null);
    expect(res.status).toBe(401);
    expect(res.headers.get('x-error-code')).toBe('AuthenticationError');
    const requestId = res.headers.get('x-request-id')!;
    const body = (await res.json()) as { error: { code: string; message: string; type: string; param: string } };
    expect(body.error).toMatchObject({ code: 'AuthenticationError', type: 'Unauthorized', param: '' });
    expect(body.error.message).toContain(`Request id: ${requestId}`); // lower-case "id", as the recorded bodies have it
  });

  test('unknown model: 404; Volcengine and endpoint ids resolve', async () => {
    expect((await ark({ model: 'seedream-9', prompt: 'x' })).status).toBe(404);
    expect((await ark({ model: 'doubao-seedream-4-5-251128', prompt: 'x' })).status).toBe(200);
    const ep = await ark({ model: 'ep-20260101-abc', prompt: 'x' });
    expect(((await ep.json()) as { model: string }).model).toBe('ep-20260101-abc');
  });

  test.each([
    [{ model: 'seedream-4-0-250828', prompt: 'x', size: '3K' }, 'size'],
    [{ model: 'seedream-3-0-t2i-250415', prompt: 'x', size: '2048x2049' }, 'size'],
    [{ model: 'seedream-4-5-251128', prompt: 'x', guidance_scale: 3 }, 'guidance_scale'],
    [{ model: 'seedream-4-5-251128', prompt: 'x', output_format: 'png' }, 'output_format'],
    [{ model: 'seedream-5-0-260128', prompt: 'x', optimize_prompt_options: { mode: 'fast' } }, 'optimize_prompt_options.mode'],
    [{ model: 'seededit-3-0-i2i-250628', prompt: 'x', image: ['a', 'b'] }, 'image'],
    [{ model: 'seedream-5-0-260128', prompt: 'x', image: 'data:image/PNG;base64,AAAA' }, 'image'],
    [
      {
        model: 'seedream-5-0-260128',
        prompt: 'x',
        image: 'u',
        sequential_image_generation: 'auto',
        sequential_image_generation_options: { max_images: 15 },
      },
      'sequential_image_generation_options.max_images',
    ],
    [{ model: 'seedream-5-0-260128' }, 'prompt'],
  ])('per-model refusal %#: 400 naming %s', async (body, param) => {
    const res = await ark(body);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { param: string } }).error.param).toBe(param);
  });

  test('b64_json: a real image of the stated size, no data: prefix; usage counts W*H/256', async () => {
    const res = await ark({
      model: 'seedream-5-0-260128',
      prompt: 'x 21:9',
      size: '3K',
      response_format: 'b64_json',
      output_format: 'png',
    });
    const body = (await res.json()) as { data: Array<{ b64_json: string; size: string }>; usage: { output_tokens: number } };
    expect(body.data[0]!.size).toBe('4704x2016');
    expect(imageDimensions(Buffer.from(body.data[0]!.b64_json, 'base64'))).toEqual({ width: 4704, height: 2016 });
    expect(body.usage.output_tokens).toBe((4704 * 2016) / 256);
  });

  test('links are signed and expire after the TTL', async () => {
    const res = await ark({ model: 'seedream-4-0-250828', prompt: 'x' });
    const url = ((await res.json()) as { data: Array<{ url: string }> }).data[0]!.url;
    expect(url).toMatch(/_0\.jpeg\?X-Tos-Algorithm=TOS4-HMAC-SHA256&/);
    expect((await fetch(url)).status).toBe(200);
    expect((await fetch(url.replace(/X-Tos-Signature=[0-9a-f]+/, 'X-Tos-Signature=00'))).status).toBe(403);
    // a link signed with the simulator's own secret, dated past its TTL: no clock to wait out
    const spec = new URL(url).searchParams.get('X-Tos-Spec')!;
    const [size, format] = spec.split('.');
    const [width, height] = size!.split('x').map(Number);
    const signer = createLinkSigner(sim.url, 'simulator-link-secret', 600);
    const stale = signer.sign(
      'old_0.jpeg',
      { width: width!, height: height!, format: format as 'jpeg', watermark: true, hue: 0 },
      new Date(Date.now() - 601_000),
    );
    const expired = await fetch(stale);
    expect(expired.status).toBe(403);
    expect(await expired.text()).toContain('Request has expired');
    const fresh = signer.sign('old_0.jpeg', { width: width!, height: height!, format: format as 'jpeg', watermark: true, hue: 0 });
    expect((await fetch(fresh)).status).toBe(200);
  });

  test('an internal failure stops a set; a moderated slot does not', async () => {
    await fault({ type: 'image-error', api: 'images', index: 1, code: 'InternalServiceError' });
    const res = await ark({ model: 'seedream-4-0-250828', prompt: 'in 4 images', sequential_image_generation: 'auto' });
    const body = (await res.json()) as { data: Array<{ error?: { code: string } }>; usage: { generated_images: number } };
    expect(body.data).toHaveLength(2);
    expect(body.data[1]!.error!.code).toBe('InternalServiceError');
    expect(body.usage.generated_images).toBe(1);
  });

  test('an injected 429 carries no Retry-After', async () => {
    await fault({ type: 'error', api: 'images', status: 429, code: 'QuotaExceeded' });
    const res = await ark({ model: 'seedream-4-0-250828', prompt: 'x' });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBeNull();
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('QuotaExceeded');
  });
});

describe('Gemini TTS', () => {
  const tts = {
    contents: [{ parts: [{ text: 'Hello' }] }],
    generationConfig: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } } },
  };

  test('auth: bad key 400 API_KEY_INVALID, none 403, bad bearer 401', async () => {
    const bad = await gemini(tts, { 'x-goog-api-key': 'nope' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      error: { status: 'INVALID_ARGUMENT', details: [{ reason: 'API_KEY_INVALID' }, { locale: 'en-US' }] },
    });
    expect((await gemini(tts, {})).status).toBe(403);
    expect((await gemini(tts, { authorization: 'Bearer nope' })).status).toBe(401);
    expect((await gemini(tts, { authorization: 'Bearer sim-key' })).status).toBe(200);
  });

  test('unknown field: 400 with a field violation; unknown model: 404', async () => {
    const res = await gemini({ ...tts, generationConfig: { ...tts.generationConfig, foo: 1 } }, { 'x-goog-api-key': 'sim-key' });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { details: [{ fieldViolations: [{ field: 'generation_config' }] }] } });
    expect((await gemini(tts, { 'x-goog-api-key': 'sim-key' }, 'gemini-9-tts:generateContent')).status).toBe(404);
  });

  test('429 carries RetryInfo and QuotaFailure in the body, no Retry-After header', async () => {
    await fault({ type: 'error', api: 'speech', status: 429, retryDelay: '45.837906927s' });
    const res = await gemini(tts, { 'x-goog-api-key': 'sim-key' });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBeNull();
    const body = (await res.json()) as { error: { details: Array<Record<string, unknown>> } };
    expect(body.error.details).toContainEqual({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '45.837906927s' });
    expect(body.error.details.some((d) => String(d['@type']).endsWith('QuotaFailure'))).toBe(true);
  });

  test('audio length follows the text and stops at about 327 s', async () => {
    const lengthOf = async (text: string) => {
      const res = await gemini({ ...tts, contents: [{ parts: [{ text }] }] }, { 'x-goog-api-key': 'sim-key' });
      const body = (await res.json()) as { candidates: Array<{ content: { parts: Array<{ inlineData: { data: string } }> } }> };
      return Buffer.from(body.candidates[0]!.content.parts[0]!.inlineData.data, 'base64').length / 48_000;
    };
    expect(await lengthOf('a'.repeat(150))).toBeCloseTo(10, 1);
    expect(await lengthOf('a'.repeat(20_000))).toBeCloseTo(327, 1);
  });

  test('successor models: 3.x refuses a request without a voice, the 2.5 previews choose one; multi-speaker takes exactly two', async () => {
    const key = { 'x-goog-api-key': 'sim-key' };
    const unvoiced = { ...tts, generationConfig: { responseModalities: ['AUDIO'] } };
    expect((await gemini(unvoiced, key)).status).toBe(200);
    for (const model of ['gemini-3.1-flash-tts-preview', 'gemini-3.8-flash-tts', 'gemini-3.8-flash-lite-tts']) {
      const refused = await gemini(unvoiced, key, `${model}:generateContent`);
      expect(refused.status).toBe(400);
      expect(await refused.json()).toEqual({
        error: { code: 400, message: 'Request contains an invalid argument.', status: 'INVALID_ARGUMENT' },
      });
      const voiced = await gemini(tts, key, `${model}:generateContent`);
      expect(voiced.status).toBe(200);
      expect(((await voiced.json()) as { modelVersion: string }).modelVersion).toBe(model);
    }
    const speaker = (name: string) => ({ speaker: name, voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Puck' } } });
    const alone = {
      ...tts,
      generationConfig: {
        responseModalities: ['AUDIO'],
        speechConfig: { multiSpeakerVoiceConfig: { speakerVoiceConfigs: [speaker('Joe')] } },
      },
    };
    expect((await gemini(alone, key)).status).toBe(400);
  });
});
