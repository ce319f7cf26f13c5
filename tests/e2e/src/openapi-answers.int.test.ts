import { waitFor } from '@relay/testkit';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { renderImage } from '@relay/simulator';
import { conformance, type OpenApiDocument } from './openapi-conformance.js';
import { startStack, type Stack } from './stack.js';

/**
 * The document tells the truth: real calls of every kind, in both dialects, send bodies the
 * document's request schemas accept and get answers its response schemas match. The tests run
 * in order and share the account they make; the last one checks that every component the
 * document names was sent or received by them.
 */
let stack: Stack;
let doc: ReturnType<typeof conformance>;
let components: string[];
const made = { account: '', key: '', keyId: '', file: '', batch: '' };
const IMAGE = { model: 'vendor-gen-5-0-260128', prompt: 'a fox' };
const SPEECH_MODEL = 'vendor-2.5-flash-preview-tts';
const SPEECH = {
  contents: [{ role: 'user', parts: [{ text: 'Say cheerfully: hello' }] }],
  generationConfig: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } } },
};

beforeAll(async () => {
  stack = await startStack();
  const document = (await (await fetch(`${stack.url}/openapi.json`)).json()) as OpenApiDocument;
  doc = conformance(document);
  components = Object.keys(document.components.schemas);
}, 60_000);
afterAll(async () => stack?.close());

const admin = (method: string, template: string, path: string, body?: unknown) =>
  stack.admin(method, path, body).then((res) => doc.check(res, method, `/admin${template}`, body));
const call = (method: string, template: string, path: string, headers: Record<string, string>, body?: unknown) =>
  fetch(`${stack.url}${path}`, {
    method,
    redirect: 'manual',
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then((res) => doc.check(res, method, template, body));
const openai = () => ({ authorization: `Bearer ${made.key}` });
const google = () => ({ 'x-goog-api-key': made.key });

test('the admin API answers as documented', async () => {
  made.account = (await admin('POST', '/accounts', '/accounts', { name: 'openapi' })).id;
  const id = made.account;
  await admin('POST', '/accounts/{id}/credits', `/accounts/${id}/credits`, { amount: 1_000_000_000, note: 'test funds' });
  ({ key: made.key, id: made.keyId } = await admin('POST', '/accounts/{id}/keys', `/accounts/${id}/keys`, { name: 'a key' }));
  const spare = await admin('POST', '/accounts/{id}/keys', `/accounts/${id}/keys`, { name: 'spare', rateLimitPerMinute: 5 });
  await admin('DELETE', '/keys/{id}', `/keys/${spare.id}`);
  await admin('GET', '/accounts/{id}', `/accounts/${id}`);
  await admin('GET', '/accounts/{id}/keys', `/accounts/${id}/keys`);
  await admin('PATCH', '/accounts/{id}', `/accounts/${id}`, { weight: 2, maxInFlight: null });
  await admin('GET', '/accounts', '/accounts?q=openapi&limit=5');
  await admin('GET', '/accounts/{id}', '/accounts/no-such-account');
  await admin('GET', '/schedule', '/schedule');
  await admin('GET', '/stats/queues', '/stats/queues');
  await admin('GET', '/catalog', '/catalog');
  await admin('GET', '/demo-key', '/demo-key');
  await admin('GET', '/queues', '/queues');
  await call('GET', '/console/config', '/console/config', {});

  const hook = await admin('POST', '/accounts/{id}/webhooks', `/accounts/${id}/webhooks`, { url: `${stack.sim.url}/hook` });
  await admin('GET', '/accounts/{id}/webhooks', `/accounts/${id}/webhooks`);
  await admin('GET', '/webhooks/{id}/deliveries', `/webhooks/${hook.id}/deliveries`);
  await admin('DELETE', '/webhooks/{id}', `/webhooks/${hook.id}`);
  await admin('POST', '/accounts/{id}/request-webhook-secret', `/accounts/${id}/request-webhook-secret`);

  // a second way to the simulator, taken out of service at once: the stack's calls go on as before
  const channel = { id: 'openapi-tour', upstream: 'ark', baseUrl: `${stack.sim.url}/api/v3`, apiKey: 'sim-key', weight: 1 };
  await admin('POST', '/channels', '/channels', channel);
  await admin('PATCH', '/channels/{id}', `/channels/${channel.id}`, { disabled: true, maxConcurrent: 2 });
  await admin('GET', '/channels', '/channels');
  await admin('GET', '/channels/{id}', `/channels/${channel.id}`);
  await admin('DELETE', '/channels/{id}', `/channels/${channel.id}`);
});

test('the public API answers as documented, in both dialects', async () => {
  await call('GET', '/v1/models', '/v1/models', openai());
  await call('GET', '/v1/models', '/v1/models?pageSize=1', google());
  await call('GET', '/v1/models/{model}', `/v1/models/${IMAGE.model}`, openai());
  await call('GET', '/v1/models/{model}', `/v1/models/${SPEECH_MODEL}`, google());
  await call('GET', '/v1beta/models', '/v1beta/models', google());
  await call('GET', '/v1beta/models/{model}', `/v1beta/models/${SPEECH_MODEL}`, google());
  await call('GET', '/v1beta/models/{model}', '/v1beta/models/no-such-model', google());
  await call('POST', '/v1beta/models/{model}:countTokens', `/v1beta/models/${SPEECH_MODEL}:countTokens`, google(), {
    contents: SPEECH.contents,
  });

  const images = await call('POST', '/v1/images/generations', '/v1/images/generations', openai(), IMAGE);
  await call('GET', '/files/{fileId}', new URL(images.data[0].url as string).pathname, {});
  await call('POST', `/v1beta/models/{model}:generateContent`, `/v1beta/models/${SPEECH_MODEL}:generateContent`, google(), SPEECH);
  const pending = await call('POST', '/v1/images/generations', '/v1/images/generations', { ...openai(), Prefer: 'respond-async' }, IMAGE);
  expect(pending.object).toBe('relay.job');
  await call('GET', '/v1/jobs/{id}', `/v1/jobs/${pending.id}`, openai());
  const done = await waitFor(async () => {
    const res = await fetch(`${stack.url}/v1/jobs/${pending.id}`, { headers: openai() });
    return res.status === 200 ? res : void (await res.arrayBuffer());
  });
  expect((await doc.check(done, 'GET', '/v1/jobs/{id}')).data).toHaveLength(1);
  await call('GET', '/v1/jobs/{id}', '/v1/jobs/img_nope', openai());
  // a finished job cannot be cancelled (409); an unknown one is a 404
  await call('POST', '/v1/jobs/{id}/cancel', `/v1/jobs/${pending.id}/cancel`, openai());
  await call('POST', '/v1/jobs/{id}/cancel', '/v1/jobs/img_nope/cancel', openai());
  await call('GET', '/v1/jobs/{id}/events', `/v1/jobs/${pending.id}/events`, openai());
  await call('GET', '/v1/webhooks/secret', '/v1/webhooks/secret', openai());

  for (const path of ['/healthz', '/readyz', '/metrics', '/openapi.json', '/docs', '/console']) await call('GET', path, path, {});
  await admin('GET', '/accounts/{id}/usage', `/accounts/${made.account}/usage?limit=10`);
  await admin('GET', '/accounts/{id}/usage/daily', `/accounts/${made.account}/usage/daily?days=2`);
  await admin('GET', '/usage/daily', '/usage/daily');
  await admin('GET', '/stats/traffic', '/stats/traffic?hours=1');
});

test('batches and their files answer as documented', async () => {
  const line = { custom_id: 'one', method: 'POST', url: '/v1/images/generations', body: IMAGE };
  const form = new FormData();
  form.append('purpose', 'batch');
  form.append('file', new Blob([`${JSON.stringify(line)}\n`]), 'tour.jsonl');
  const upload = await fetch(`${stack.url}/v1/files`, { method: 'POST', headers: openai(), body: form });
  made.file = (await doc.check(upload, 'POST', '/v1/files')).id;
  await call('GET', '/v1/files', '/v1/files?limit=5', openai());
  await call('GET', '/v1/files/{fileId}', `/v1/files/${made.file}`, openai());
  await call('GET', '/v1/files/{fileId}/content', `/v1/files/${made.file}/content`, openai());

  // the upstream holds the line: the batch is running while it is read
  await stack.fault({ type: 'hold', api: 'images' });
  const create = { input_file_id: made.file, endpoint: '/v1/images/generations', completion_window: '24h' };
  made.batch = (await call('POST', '/v1/batches', '/v1/batches', openai(), create)).id;
  await waitFor(async () => (await stack.simStats()).holding === 1, 10_000, 'the line held upstream');
  const id = made.batch;
  await call('GET', '/v1/batches', '/v1/batches?limit=5', openai());
  await call('GET', '/v1/batches/{batchId}', `/v1/batches/${id}`, openai());
  await call('GET', '/v1/batches/{batchId}/results', `/v1/batches/${id}/results`, openai());
  await admin('GET', '/batches', '/batches?limit=5');
  await admin('GET', '/batches/{id}', `/batches/${id}`);
  expect((await admin('POST', '/batches/{id}/cancel', `/batches/${id}/cancel`)).status).toBe('cancelling');
  expect(await stack.release()).toBe(1);
  const status = async () => ((await (await stack.admin('GET', `/batches/${id}`)).json()) as { status: string }).status;
  await waitFor(async () => (await status()) === 'cancelled', 10_000, 'the batch cancelled');
  await admin('GET', '/batches/{id}/files/{which}', `/batches/${id}/files/output`);
  await admin('GET', '/batches/{id}/archive', `/batches/${id}/archive`);
  await call('GET', '/v1/batches/{batchId}/archive', `/v1/batches/${id}/archive`, openai());
  await call('DELETE', '/v1/files/{fileId}', `/v1/files/${made.file}`, openai());
});

test("OpenAI's speech and edits answer as documented: audio, events, JSON errors, forms and JSON bodies", async () => {
  const speech = { model: 'tts-1', voice: 'alloy', input: 'Welcome aboard.' };
  await call('POST', '/v1/audio/speech', '/v1/audio/speech', openai(), speech);
  await call('POST', '/v1/audio/speech', '/v1/audio/speech', openai(), { ...speech, response_format: 'opus', speed: 1.5 });
  const events = await call('POST', '/v1/audio/speech', '/v1/audio/speech', openai(), { ...speech, stream_format: 'sse' });
  expect(events).toContain('speech.audio.done');
  expect((await call('POST', '/v1/audio/speech', '/v1/audio/speech', openai(), { ...speech, voice: 'baritone' })).error.param).toBe(
    'voice',
  );
  const tooLong = { ...speech, input: 'a'.repeat(32_001) };
  expect((await call('POST', '/v1/audio/speech', '/v1/audio/speech', openai(), tooLong)).error.param).toBe('input');
  const pending = await call(
    'POST',
    '/v1/audio/speech',
    '/v1/audio/speech',
    { ...openai(), Prefer: 'respond-async' },
    { ...speech, response_format: 'flac' },
  );
  const done = await waitFor(async () => {
    const res = await fetch(`${stack.url}/v1/jobs/${pending.id}`, { headers: openai() });
    return res.status === 200 ? res : void (await res.arrayBuffer());
  });
  expect(done.headers.get('content-type')).toBe('audio/flac');
  await doc.check(done, 'GET', '/v1/jobs/{id}');

  const png = renderImage({ width: 64, height: 64, format: 'png', watermark: false, hue: 2 });
  const edit = { model: 'vendor-gen-4-0-250828', prompt: 'both in one', n: '1', size: '2K' };
  const form = (extra: Record<string, string> = {}) => {
    const body = new FormData();
    for (const [name, value] of Object.entries({ ...edit, ...extra })) body.append(name, value);
    for (const name of ['one.png', 'two.png']) body.append('image', new Blob([new Uint8Array(png)], { type: 'image/png' }), name);
    return body;
  };
  const sentForm = (extra: Record<string, string> = {}) => ({ ...edit, ...extra, image: ['one.png', 'two.png'] });
  const multipart = async (extra?: Record<string, string>) =>
    doc.check(
      await fetch(`${stack.url}/v1/images/edits`, { method: 'POST', headers: openai(), body: form(extra) }),
      'POST',
      '/v1/images/edits',
      sentForm(extra),
      'form',
    );
  expect((await multipart()).data).toHaveLength(1);
  expect((await multipart({ response_format: 'b64_json' })).data[0].b64_json).toBeDefined();
  const json = { model: edit.model, prompt: edit.prompt, images: [{ image_url: `data:image/png;base64,${png.toString('base64')}` }] };
  expect((await call('POST', '/v1/images/edits', '/v1/images/edits', openai(), json)).data).toHaveLength(1);
  const refused = await call('POST', '/v1/images/edits', '/v1/images/edits', openai(), { ...json, model: 'vendor-gen-3-0-t2i-250415' });
  expect(refused.error.param).toBe('image');
});

test('every component the document names was sent or received by the calls above', () => {
  expect(components.filter((name) => !doc.reached.has(name))).toEqual([]);
});
