import { existsSync, readdirSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { renderImage } from '@relay/simulator';
import { postJson, startStack, type Stack } from './stack.js';

/**
 * Nothing a vendor sends is trusted (DESIGN 17): the whole relay against a stand-in vendor on
 * 127.0.0.1 whose Ark images API answers with links into its own link server, each test telling
 * it which links (or bytes) the next answer carries. Every vendor call and every link GET is
 * counted, so a retried job or a retried download shows.
 */
const MiB = 1024 * 1024;
const PRICE_4_0 = 30_000;
const png = renderImage({ width: 64, height: 64, format: 'png', watermark: false, hue: 30 });
const html = Buffer.from('<!doctype html><html><script>fetch("/v1/jobs").then((r) => r.text()).then(alert)</script></html>');

let slots: Array<{ link: string } | { b64: Buffer }> = [];
let sized = true;
const calls: string[] = [];
const gets: string[] = [];
function streamPng(res: ServerResponse, total: number) {
  res.writeHead(200, { 'content-type': 'image/png' }); // no Content-Length: chunked
  const chunk = Buffer.alloc(64 * 1024, 7);
  let sent = png.length;
  res.write(png);
  const pump = () => {
    while (!res.destroyed && sent < total) {
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    if (!res.destroyed) res.end();
  };
  pump();
}
const vendor = createServer((req, res) => {
  const path = req.url ?? '/';
  if (req.method === 'POST' && path === '/api/v3/images/generations') {
    calls.push(path);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const { stream } = JSON.parse(Buffer.concat(chunks).toString()) as { stream?: boolean };
      // a vendor that names no size (3.0-t2i, SeedEdit) when `sized` is off
      const size = sized ? { size: '64x64' } : {};
      const data = slots.map((slot) =>
        'link' in slot ? { url: `${origin}${slot.link}`, ...size } : { b64_json: slot.b64.toString('base64'), ...size },
      );
      const stamp = { model: 'seedream-4-0-250828', created: Math.floor(Date.now() / 1000) };
      if (!stream) return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...stamp, data }));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const event = (body: object) => res.write(`data: ${JSON.stringify(body)}\n\n`);
      data.forEach((slot, image_index) => event({ type: 'image_generation.partial_succeeded', ...stamp, image_index, ...slot }));
      event({ type: 'image_generation.completed', ...stamp, usage: { generated_images: data.length } });
      res.end('data: [DONE]\n\n');
    });
    return;
  }
  gets.push(path);
  switch (path) {
    case '/page.jpeg':
      return res.writeHead(200, { 'content-type': 'image/jpeg' }).end(html);
    case '/image.jpeg':
      return res.writeHead(200, { 'content-type': 'image/jpeg' }).end(png);
    case '/endless.png':
      return streamPng(res, 64 * MiB);
    case '/hop/2':
      return res.writeHead(302, { location: '/hop/1' }).end();
    case '/hop/1':
      return res.writeHead(307, { location: `${origin}/image.jpeg` }).end();
    case '/to-metadata':
      return res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
    default:
      return res.writeHead(404).end();
  }
});
await new Promise<void>((resolve) => vendor.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${(vendor.address() as AddressInfo).port}`;

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({
    allow: [new URL(origin).host],
    worker: { ARK_BASE_URL: `${origin}/api/v3` },
    tuning: { worker: { resultMaxBytes: 6 * MiB } },
    api: { FILES_MODE: 'proxy' },
  });
}, 60_000);
afterAll(async () => {
  await stack?.close();
  vendor.close();
});
beforeEach(() => {
  calls.length = 0;
  gets.length = 0;
  sized = true;
});

interface ImagesBody {
  data: Array<{ url: string }>;
  failed?: Array<{ index: number; code: string; message: string }>;
  error?: { message: string };
}
/** A sequential set of up to two images on a fresh account; its answer, and what the account was charged. */
async function generate(answer: typeof slots, extra: Record<string, unknown> = {}) {
  slots = answer;
  const { key, accountId } = await stack.newKey({ balance: 1_000_000 });
  const res = await postJson(
    `${stack.url}/v1/images/generations`,
    {
      model: 'vendor-gen-4-0-250828',
      prompt: 'two maps',
      sequential_image_generation: 'auto',
      sequential_image_generation_options: { max_images: 2 },
      ...extra,
    },
    key,
  );
  const body = (extra.stream ? { data: [], streamed: await res.text() } : await res.json()) as ImagesBody & { streamed?: string };
  const account = await stack.account(accountId);
  return { res, body, account, charged: account.ledger.filter((e) => e.type === 'settle').reduce((sum, e) => sum + (e.charged ?? 0), 0) };
}

const NOT_AN_IMAGE = "the upstream's image 0 is not an image (image/jpeg, starts with '<!doctype ht')";

describe('a result that is no image', () => {
  test('in a set: that slot fails (not charged), the other delivers, typed by its bytes and served with nosniff', async () => {
    const { res, body, charged } = await generate([{ link: '/page.jpeg' }, { link: '/image.jpeg' }]);
    expect(res.status).toBe(200);
    expect(body.failed).toEqual([{ index: 0, code: 'upstream_not_an_image', message: NOT_AN_IMAGE }]);
    expect(body.data).toHaveLength(1);
    expect(body.data[0]!.url).toMatch(/-1\.png$/); // a PNG behind a .jpeg link labelled image/jpeg
    expect(charged).toBe(PRICE_4_0);
    expect(calls).toHaveLength(1);
    expect(gets.sort()).toEqual(['/image.jpeg', '/page.jpeg']);

    const file = await fetch(body.data[0]!.url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/png');
    expect(file.headers.get('x-content-type-options')).toBe('nosniff');
    expect(file.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    expect(file.headers.get('content-disposition')).toMatch(/^inline; filename="img_[0-9a-f]{32}-1\.png"$/);
    expect(Buffer.from(await file.arrayBuffer()).equals(png)).toBe(true);
  });

  test('every slot: 502 at once, not retried, nothing charged', async () => {
    const { res, body, account, charged } = await generate([{ link: '/page.jpeg' }]);
    expect(res.status).toBe(502);
    expect(res.headers.get('x-should-retry')).toBe('false');
    expect(body.error?.message).toBe(NOT_AN_IMAGE);
    expect(charged).toBe(0);
    expect(account).toMatchObject({ balance: 1_000_000, reserved: 0, spent: 0 });
    expect(calls).toHaveLength(1);
    expect(gets).toEqual(['/page.jpeg']);
  });

  test('in a streamed set: that slot fails (not charged), the other is sent and charged', async () => {
    const { res, body, charged } = await generate([{ link: '/page.jpeg' }, { link: '/image.jpeg' }], { stream: true });
    expect(res.status).toBe(200);
    expect(body.streamed!.match(/^event: image_generation\.partial_image$/gm)).toHaveLength(1);
    expect(body.streamed).toContain('upstream_not_an_image');
    expect(charged).toBe(PRICE_4_0);
    expect(calls).toHaveLength(1);
  });

  test('inline (b64_json) markup is refused the same way', async () => {
    const { res, body, charged } = await generate([{ b64: html }, { b64: png }]);
    expect(res.status).toBe(200);
    expect(body.failed).toEqual([
      { index: 0, code: 'upstream_not_an_image', message: expect.stringMatching(/^the upstream's image 0 is not an image \(/) },
    ]);
    expect(body.data).toHaveLength(1);
    expect(charged).toBe(PRICE_4_0);
  });
});

test('no Content-Length, over resultMaxBytes: 502 after one download, not retried, nothing charged, no upload part left', async () => {
  const { res, body, charged } = await generate([{ link: '/endless.png' }]);
  expect(res.status).toBe(502);
  expect(res.headers.get('x-should-retry')).toBe('false');
  expect(body.error?.message).toMatch(/^image 0 is larger than this relay accepts/);
  expect(charged).toBe(0);
  expect(calls).toHaveLength(1);
  expect(gets).toEqual(['/endless.png']);
  const directory = (stack.s3 as { directory?: string }).directory;
  if (directory) {
    // the embedded store (no Docker, no S3_ENDPOINT): the aborted upload's parts are gone
    const uploads = join(directory, stack.env.S3_BUCKET!, '._S3rver_uploads');
    expect(existsSync(uploads) ? readdirSync(uploads) : []).toEqual([]);
  }
});

test('an answer that names no size: the size is read from the image itself, and the usage from it', async () => {
  sized = false;
  const { res, body } = await generate([{ link: '/image.jpeg' }]);
  expect(res.status).toBe(200);
  const answer = body as ImagesBody & { data: Array<{ size: string }>; usage: { output_tokens: number } };
  expect(answer.data[0]!.size).toBe('64x64');
  expect(answer.usage.output_tokens).toBe((64 * 64) / 256);
});

describe('redirects on a result link', () => {
  test('a chain of two hops within the policy: followed, stored', async () => {
    const { res, body } = await generate([{ link: '/hop/2' }]);
    expect(res.status).toBe(200);
    expect(body.data).toHaveLength(1);
    expect(gets).toEqual(['/hop/2', '/hop/1', '/image.jpeg']);
  });

  test('a hop to the cloud metadata address: 502 at once, never fetched, never retried, nothing charged', async () => {
    const { res, body, charged } = await generate([{ link: '/to-metadata' }]);
    expect(res.status).toBe(502);
    expect(res.headers.get('x-should-retry')).toBe('false');
    expect(body.error?.message).toBe(
      "image 0 could not be fetched from the upstream's link: after 1 redirect, the link points at 169.254.169.254, a private address the relay does not fetch",
    );
    expect(charged).toBe(0);
    expect(calls).toHaveLength(1);
    expect(gets).toEqual(['/to-metadata']);
  });
});
