import { randomBytes } from 'node:crypto';
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { announceReady, createBlobStore, parseEnv, putObject, s3Env } from '@relay/core';

/**
 * The floor: the least a durable relay must do, in one process and the cheapest way this stack
 * allows, with the relay's own store path (its signer, one PUT): forward the request to the
 * vendor, copy each image from the vendor's link into the store (or the clip from the answer),
 * answer with links to the copies. No auth, queue, money, schedule or notice: what the relay
 * spends beyond this is its own share.
 */
const upstreamArk = process.env.FLOOR_ARK_URL!;
const upstreamGemini = process.env.FLOOR_GEMINI_URL!;
const store = createBlobStore(parseEnv(z.object(s3Env)));

// node:http with kept-alive sockets, as the relay's own upstream calls are (fetch costs more CPU)
const agent = new Agent({ keepAlive: true, maxSockets: 256 });
function call(url: string, method: string, headers: Record<string, string>, body?: Buffer): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: body ? { ...headers, 'content-length': String(body.length) } : headers, agent }, (res) => {
      readBody(res)
        .then((answer) => resolve({ status: res.statusCode ?? 0, body: answer }))
        .catch(reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const readBody = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};
const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

async function images(body: Buffer, res: ServerResponse, base: string) {
  const answer = await call(
    `${upstreamArk}/images/generations`,
    'POST',
    { 'content-type': 'application/json', authorization: 'Bearer sim-key' },
    body,
  );
  const parsed = JSON.parse(answer.body.toString()) as { created: number; data?: Array<{ url?: string; size?: string }> };
  if (answer.status !== 200) return json(res, answer.status, parsed);
  const id = randomBytes(8).toString('hex');
  const data = await Promise.all(
    (parsed.data ?? []).map(async (image, index) => {
      const bytes = (await call(image.url!, 'GET', {})).body;
      const key = `floor/${id}-${index}.jpeg`;
      await putObject(store, key, bytes, { contentType: 'image/jpeg' });
      return { url: `${base}/files/${key}`, size: image.size };
    }),
  );
  json(res, 200, { created: parsed.created, data });
}

/** A WAV header before 24 kHz 16-bit mono PCM: the clip as the relay stores it. */
function wav(pcm: Buffer): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + pcm.length, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(24_000, 24);
  header.writeUInt32LE(48_000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([header, pcm]);
}

async function speech(path: string, body: Buffer, res: ServerResponse, base: string) {
  const answer = await call(`${upstreamGemini}${path}`, 'POST', { 'content-type': 'application/json', 'x-goog-api-key': 'sim-key' }, body);
  const text = answer.body.toString();
  if (answer.status !== 200) return json(res, answer.status, JSON.parse(text));
  const parsed = JSON.parse(text) as { candidates: Array<{ content: { parts: Array<{ inlineData: { data: string } }> } }> };
  const key = `floor/${randomBytes(8).toString('hex')}.wav`;
  await putObject(store, key, wav(Buffer.from(parsed.candidates[0]!.content.parts[0]!.inlineData.data, 'base64')), {
    contentType: 'audio/wav',
  });
  res.writeHead(200, { 'content-type': 'application/json', 'x-relay-audio-url': `${base}/files/${key}` });
  res.end(text);
}

const server = createServer((req, res) => {
  const base = `http://${req.headers.host}`;
  readBody(req)
    .then((body) => {
      if (req.url === '/v1/images/generations') return images(body, res, base);
      if (req.url?.startsWith('/v1beta/models/')) return speech(req.url, body, res, base);
      return json(res, 404, { error: 'not here' });
    })
    .catch((error: Error) => json(res, 502, { error: error.message }));
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => announceReady({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
process.once('SIGTERM', () => server.close(() => process.exit(0)));
