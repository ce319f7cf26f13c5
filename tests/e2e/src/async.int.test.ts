import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { waitFor } from '@relay/testkit';
import { postJson, startStack, type Stack } from './stack.js';

let stack: Stack;
let key: string;
beforeAll(async () => {
  stack = await startStack({ tuning: { api: { maxWaitMs: 3_000 } } });
  ({ key } = await stack.newKey());
}, 60_000);
afterAll(async () => stack?.close());

const IMAGE = { model: 'vendor-gen-5-0-260128', prompt: 'a fox' };
/**
 * POST /v1/images/generations answers as the api's duration histogram counts them: all of them,
 * and those answered within `seconds` (a bucket bound).
 */
async function answeredWithin(seconds: number) {
  const lines = (await (await fetch(`${stack.url}/metrics`)).text()).split('\n');
  const sample = (prefix: string, ...pairs: string[]) =>
    Number(
      lines
        .find((l) => l.startsWith(prefix) && [...pairs, 'route="/v1/images/generations"', 'method="POST"'].every((p) => l.includes(p)))
        ?.split(' ')
        .at(-1) ?? 0,
    );
  const total = sample('relay_http_request_duration_seconds_count{');
  // the +Inf bucket holds every answer: a check that the bucket lines are the ones read
  expect(sample('relay_http_request_duration_seconds_bucket{', 'le="+Inf"')).toBe(total);
  return { total, within: sample('relay_http_request_duration_seconds_bucket{', `le="${seconds}"`) };
}
const job = (id: string) => fetch(`${stack.url}/v1/jobs/${id}`, { headers: { authorization: `Bearer ${key}` } });

describe('Prefer', () => {
  test('wait=1 on a slow job: 202 after about a second, then GET /v1/jobs/{id} gives the same body as the sync call', async () => {
    // the upstream holds the call: the job cannot end before the wait does
    await stack.fault({ type: 'hold', api: 'images' });
    const before = await answeredWithin(1);
    const res = await postJson(`${stack.url}/v1/images/generations`, IMAGE, key, { Prefer: 'wait=1' });
    expect(res.status).toBe(202);
    expect((await stack.simStats()).holding).toBe(1);
    // the relay's own clock: it answered this request in more than the second it was asked to wait
    const after = await answeredWithin(1);
    expect(after.total).toBe(before.total + 1);
    expect(after.within).toBe(before.within);
    expect(res.headers.get('preference-applied')).toBe('wait=1');
    const pending = (await res.json()) as { id: string; object: string; status: string; created: number };
    expect(pending).toMatchObject({ object: 'relay.job', status: 'running' });
    expect(res.headers.get('location')).toBe(`/v1/jobs/${pending.id}`);
    expect((await job(pending.id)).status).toBe(202);
    expect(await stack.release()).toBe(1);

    const done = await waitFor(async () => {
      const r = await job(pending.id);
      return r.status === 200 ? r : undefined;
    }, 10_000);
    const body = (await done.json()) as { created: number; data: Array<{ url: string; size: string }> };
    expect(body.data[0]!.size).toBe('2048x2048');
    expect((await fetch(body.data[0]!.url)).status).toBe(200);
  });

  test('respond-async answers at once; the wait is capped by maxWaitMs', async () => {
    const res = await postJson(`${stack.url}/v1/images/generations`, IMAGE, key, { Prefer: 'respond-async' });
    expect(res.status).toBe(202);
    await res.arrayBuffer();
    const capped = await postJson(`${stack.url}/v1/images/generations`, IMAGE, key, { Prefer: 'wait=600' });
    expect(capped.headers.get('preference-applied')).toBe('wait=3');
    expect(capped.status).toBe(200);
  });

  test('a speech job fetched later answers in Gemini shape, with its audio link', async () => {
    const res = await fetch(`${stack.url}/v1beta/models/vendor-2.5-flash-preview-tts:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': key, Prefer: 'respond-async' },
      body: JSON.stringify({
        contents: [{ parts: [{ text: 'Later, please.' }] }],
        generationConfig: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } } },
      }),
    });
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };
    expect(id).toMatch(/^tts_/);
    const done = await waitFor(async () => {
      const r = await fetch(`${stack.url}/v1/jobs/${id}`, { headers: { 'x-goog-api-key': key } });
      return r.status === 200 ? r : undefined;
    }, 10_000);
    expect(done.headers.get('x-relay-audio-url')).toMatch(/\/files\/tts_[0-9a-f]{32}-0\.wav$/);
    expect(await done.json()).toMatchObject({ candidates: [{ finishReason: 'STOP' }], modelVersion: 'vendor-2.5-flash-preview-tts' });
  });

  test('unknown or missing jobs are 404', async () => {
    expect((await job('img_00000000000000000000000000000000')).status).toBe(404);
    expect((await job('nonsense')).status).toBe(404);
  });
});
