import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { repoRoot } from '@relay/testkit';
import { renderImage } from '@relay/simulator';

/**
 * A stand-in for the vendors that answers with their own recorded answers
 * (apps/simulator/fixtures/vendor), queued by a test, instead of the simulator's imitation. Only
 * what cannot be replayed as recorded is changed, mechanically: a result link ("https://...", or
 * a gateway's) points at an image this server serves, a stream's `data:` JSON printed across lines
 * goes on one line (as the vendor's SDKs read it), a candidate pasted alone is put in `candidates`,
 * and audio a gateway replaced with a link is real PCM again.
 */
export interface Reply {
  status: number;
  body: string;
  contentType: string;
}

const fixtures = `${repoRoot}/apps/simulator/fixtures/vendor/`;
export const fixture = (path: string) => readFileSync(`${fixtures}${path}`, 'utf8');

/** A 440 Hz tone as 24 kHz 16-bit PCM, what Gemini's inlineData carries. */
function tone(seconds: number): Buffer {
  const pcm = Buffer.alloc(Math.round(24_000 * seconds) * 2);
  for (let i = 0; i < pcm.length / 2; i++) pcm.writeInt16LE(Math.round(8_000 * Math.sin((2 * Math.PI * 440 * i) / 24_000)), i * 2);
  return pcm;
}

export async function startReplay() {
  const queues: Record<'images' | 'speech', Reply[]> = { images: [], speech: [] };
  const calls: Array<{ api: 'images' | 'speech'; path: string; body: unknown }> = [];
  let base = '';

  const linked = (event: Record<string, unknown>, n: number) =>
    typeof event.url === 'string' ? { ...event, url: `${base}/img/${n}.jpeg` } : event;

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'GET' && req.url?.startsWith('/img/')) {
        const file = renderImage({ width: 64, height: 64, format: 'jpeg', watermark: false, hue: 1 });
        res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': file.length }).end(file);
        return;
      }
      const api = req.url?.startsWith('/api/v3/images/generations')
        ? 'images'
        : req.url?.startsWith('/v1beta/models/')
          ? 'speech'
          : undefined;
      if (!api || req.method !== 'POST') return void res.writeHead(404).end();
      const text = Buffer.concat(chunks).toString('utf8');
      calls.push({ api, path: req.url!, body: text ? (JSON.parse(text) as unknown) : undefined });
      const reply = queues[api].shift();
      if (!reply)
        return void res
          .writeHead(500, { 'content-type': 'application/json' })
          .end('{"error":{"code":"NoReplyQueued","message":"no reply queued"}}');
      res.writeHead(reply.status, { 'content-type': reply.contentType }).end(reply.body);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: base,
    host: new URL(base).host,
    calls,
    /** A recorded Ark JSON answer or error, its links made fetchable. */
    ark(path: string, status = 200) {
      const parsed = JSON.parse(fixture(path)) as { data?: Array<Record<string, unknown>> };
      const body = parsed.data ? { ...parsed, data: parsed.data.map((slot, n) => linked(slot, n)) } : parsed;
      queues.images.push({ status, body: status === 200 ? JSON.stringify(body) : fixture(path), contentType: 'application/json' });
    },
    /** A recorded Ark event stream (the doc prints each data JSON across lines: one line each here), under `contentType`. */
    arkStream(path: string, contentType = 'text/event-stream') {
      const events = fixture(path)
        .split(/\n\n+/)
        .filter((block) => block.trim())
        .map((block, n) => {
          const event = /^event: (.+)$/m.exec(block)?.[1];
          const data = block.slice(block.indexOf('data:') + 5).trim();
          const line = data === '[DONE]' ? data : JSON.stringify(linked(JSON.parse(data) as Record<string, unknown>, n));
          return `${event ? `event: ${event}\n` : ''}data: ${line}\n\n`;
        });
      queues.images.push({ status: 200, body: events.join(''), contentType });
    },
    /** A recorded Gemini answer or error; a candidate pasted alone goes in `candidates`, audio replaced by a link is PCM again. */
    gemini(path: string, status = 200, seconds = 1) {
      const parsed = JSON.parse(fixture(path)) as Record<string, unknown>;
      let body: unknown = parsed;
      if (status === 200 && 'finishReason' in parsed) body = { candidates: [parsed], usageMetadata: parsed.usageMetadata };
      if (status === 200 && Array.isArray(parsed.candidates)) {
        const [candidate] = parsed.candidates as Array<{ content: { parts: Array<{ inlineData: { data: string; mimeType: string } }> } }>;
        const inline = candidate!.content.parts[0]!.inlineData;
        if (/^https?:/.test(inline.data)) inline.data = tone(seconds).toString('base64');
      }
      queues.speech.push({ status, body: status === 200 ? JSON.stringify(body) : fixture(path), contentType: 'application/json' });
    },
    pending: () => queues.images.length + queues.speech.length,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
export type Replay = Awaited<ReturnType<typeof startReplay>>;
