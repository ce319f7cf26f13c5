import { createServer, type IncomingMessage } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { freePort } from '@relay/testkit';
import { startStack, type Stack } from './stack.js';

/**
 * The webhook a request names for its own job (`Relay-Webhook`), on any door, sync or async:
 * received by a real HTTP endpoint and verified with the Standard Webhooks library, using the
 * secret the caller reads with its own key.
 */
interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}
const received: Received[] = [];
const receiver = createServer((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    received.push({ path: req.url ?? '', headers: req.headers, body });
    res.end();
  });
});
let hooks: string;
let stack: Stack;
beforeAll(async () => {
  const port = await freePort();
  await new Promise<void>((resolve) => receiver.listen(port, '127.0.0.1', resolve));
  hooks = `http://127.0.0.1:${port}`;
  stack = await startStack({
    allow: [`127.0.0.1:${port}`],
    queues: { images: { maxConcurrent: 1, dispatchWindow: 1 } },
    tuning: { webhooks: { backoffMs: 50 } },
  });
}, 60_000);
afterAll(async () => {
  await stack?.close();
  receiver.close();
});

const IMAGE = { model: 'vendor-gen-4-0-250828', prompt: 'a lighthouse, told' };
const post = (path: string, key: string, body: unknown, headers: Record<string, string>) =>
  fetch(`${stack.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
    body: JSON.stringify(body),
  });
/** The message the receiver got at `path`, verified with the account's request-webhook secret. */
async function messageAt(path: string, key: string) {
  await vi.waitFor(() => expect(received.some((r) => r.path === path)).toBe(true), { timeout: 20_000 });
  const message = received.find((r) => r.path === path)!;
  const { secret } = (await (await fetch(`${stack.url}/v1/webhooks/secret`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
    secret: string;
  };
  return new Webhook(secret).verify(message.body, message.headers as Record<string, string>) as {
    type: string;
    data: { id: string; status: string; answer?: { data: Array<{ url: string }> }; error?: { code: string } };
  };
}

test('a synchronous call names its webhook: the job.completed message carries the answer, signed with the account secret', async () => {
  const { key } = await stack.newKey();
  const res = await post('/v1/images/generations', key, IMAGE, { 'relay-webhook': `${hooks}/sync` });
  expect(res.status).toBe(200);
  const message = await messageAt('/sync', key);
  expect(message).toMatchObject({ type: 'job.completed', data: { object: 'relay.job', status: 'completed' } });
  const link = message.data.answer!.data[0]!.url;
  expect(link).toMatch(new RegExp(`^${stack.url}/files/${message.data.id}-0\\.`));
  expect((await fetch(link)).status).toBe(200);
  // the secret is the same at every read
  const again = (await (await fetch(`${stack.url}/v1/webhooks/secret`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
    secret: string;
  };
  expect(again.secret).toMatch(/^whsec_/);
});

test("speech in Gemini's dialect names one too; a job cancelled before it began is told as job.cancelled, from the api", async () => {
  const { key } = await stack.newKey();
  const speech = await fetch(`${stack.url}/v1beta/models/vendor-2.5-flash-preview-tts:generateContent`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': key, 'relay-webhook': `${hooks}/speech` },
    body: JSON.stringify({
      contents: [{ parts: [{ text: 'The lamp is lit.' }] }],
      generationConfig: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } } },
    }),
  });
  expect(speech.status).toBe(200);
  expect(await messageAt('/speech', key)).toMatchObject({ type: 'job.completed' });

  await stack.fault({ type: 'hold', api: 'images' });
  await post('/v1/images/generations', key, IMAGE, { prefer: 'respond-async' });
  await vi.waitFor(async () => expect((await stack.simStats()).holding).toBe(1), { timeout: 20_000 });
  const queued = await post('/v1/images/generations', key, IMAGE, {
    prefer: 'respond-async',
    'relay-webhook': `${hooks}/cancelled`,
    'relay-webhook-events': 'job.cancelled',
  });
  const { id } = (await queued.json()) as { id: string };
  expect((await fetch(`${stack.url}/v1/jobs/${id}/cancel`, { method: 'POST', headers: { authorization: `Bearer ${key}` } })).status).toBe(
    200,
  );
  expect(await messageAt('/cancelled', key)).toMatchObject({
    type: 'job.cancelled',
    data: { id, status: 'cancelled', error: { code: 'cancelled' } },
  });
  await stack.release();
});

test('a webhook the URL policy refuses, or an unknown event, is a 400 naming its header, before anything is held', async () => {
  const { key, accountId } = await stack.newKey();
  const refused = await post('/v1/images/generations', key, IMAGE, { 'relay-webhook': 'http://10.0.0.1/hook' });
  expect(refused.status).toBe(400);
  expect(await refused.json()).toMatchObject({ error: { param: 'Relay-Webhook' } });
  const unknown = await post('/v1/images/generations', key, IMAGE, {
    'relay-webhook': `${hooks}/x`,
    'relay-webhook-events': 'job.started',
  });
  expect(unknown.status).toBe(400);
  expect(await unknown.json()).toMatchObject({ error: { param: 'Relay-Webhook-Events' } });
  expect((await stack.account(accountId)).reserved).toBe(0);
});
