import { existsSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeEach, describe, expect, test } from 'vitest';
import { AppError, createBlobStore, getObjectBuffer, isMissingObject, parseUrlPolicy } from '@relay/core';
import { renderImage } from '@relay/simulator';
import { startLocalS3 } from '@relay/testkit';
import {
  copyUrlToStore,
  FileTooLarge,
  LinkRefused,
  MAX_REDIRECTS,
  NotAnImage,
  putImageToStore,
  storeError,
  type CopyLimits,
  type ImageTarget,
} from './copy-to-store.js';

/**
 * What a vendor's link may answer, through copyUrlToStore into the embedded store: a tiny HTTP
 * server on 127.0.0.1 stands in for the vendor's link server, and counts every GET it gets, so a
 * retried download shows as a second GET.
 */
const MiB = 1024 * 1024;
const png = renderImage({ width: 64, height: 64, format: 'png', watermark: false, hue: 10 });
const jpeg = renderImage({ width: 64, height: 64, format: 'jpeg', watermark: false, hue: 20 });
const webp = Buffer.from('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==', 'base64');
const html = Buffer.from('<!doctype html><html><body><script>fetch("/v1/jobs")</script></body></html>');
const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(document.domain)"></svg>');

const gets: string[] = [];
/** Writes `total` bytes that open like a PNG, with no Content-Length (chunked), as fast as the reader takes them. */
function streamPng(res: ServerResponse, total: number) {
  res.writeHead(200, { 'content-type': 'image/png' });
  const chunk = Buffer.alloc(64 * 1024, 7);
  let sent = png.length;
  res.write(png);
  const pump = () => {
    while (!res.destroyed && sent < total) {
      const piece = chunk.subarray(0, Math.min(chunk.length, total - sent));
      sent += piece.length;
      if (!res.write(piece)) return void res.once('drain', pump);
    }
    if (!res.destroyed) res.end();
  };
  pump();
}

const server = createServer((req, res) => {
  const path = req.url ?? '/';
  gets.push(path);
  const send = (status: number, body: Buffer | string, headers: Record<string, string> = {}) => res.writeHead(status, headers).end(body);
  const hop = /^\/hop\/(\d+)$/.exec(path);
  if (hop) {
    const left = Number(hop[1]);
    // relative and absolute Locations, both as vendors' CDNs send them
    const next = left === 1 ? `${origin}/png-as-jpeg.jpg` : left % 2 ? `${origin}/hop/${left - 1}` : `/hop/${left - 1}`;
    return send(302, '', { location: next });
  }
  switch (path) {
    case '/png-as-jpeg.jpg':
      return send(200, png, { 'content-type': 'image/jpeg' });
    case '/jpeg-as-octets':
      return send(200, jpeg, { 'content-type': 'application/octet-stream' });
    case '/webp':
      return send(200, webp, { 'content-type': 'image/webp' });
    case '/page.jpg':
      return send(200, html, { 'content-type': 'image/jpeg' });
    case '/drawing.png':
      return send(200, svg, { 'content-type': 'image/svg+xml' });
    case '/empty.jpg':
      return send(200, '', { 'content-type': 'image/jpeg' });
    case '/no-length-within-cap':
      return streamPng(res, 5 * MiB + 123_457);
    case '/no-length-over-cap':
      return streamPng(res, 64 * MiB);
    case '/length-over-cap':
      return send(200, Buffer.concat([png, Buffer.alloc(7 * MiB)]), {
        'content-type': 'image/png',
        'content-length': String(png.length + 7 * MiB),
      });
    case '/to-private':
      return send(302, '', { location: 'http://10.0.0.1/image.png' });
    case '/to-loopback-by-name':
      // the same server by a name the policy judges by what it resolves to (not allowlisted)
      return send(302, '', { location: `http://localhost:${port}/png-as-jpeg.jpg` });
    case '/to-file':
      return send(302, '', { location: 'file:///etc/passwd' });
    case '/redirect-nowhere':
      return send(302, '');
    case '/expired':
      return send(403, '<Error><Code>AccessDenied</Code></Error>', { 'content-type': 'application/xml' });
    default:
      return send(404, 'not found');
  }
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = (server.address() as AddressInfo).port;
const origin = `http://127.0.0.1:${port}`;

const bucket = 'copy-test';
const s3 = await startLocalS3({ bucket });
const store = createBlobStore({ ...s3.env, S3_FORCE_PATH_STYLE: true });
afterAll(async () => {
  server.close();
  await s3.close();
});

/** What the store client sent, by command (the multipart path shows here). */
const sent: string[] = [];
store.client.middlewareStack.add((next, context) => (args) => (sent.push(context.commandName!.replace(/Command$/, '')), next(args)), {
  step: 'initialize',
  name: 'record-commands',
});
const retries: unknown[] = [];
const limits: CopyLimits = {
  maxBytes: 6 * MiB,
  timeoutMs: 30_000,
  // a final failure retried by mistake shows as a retry (and a second GET) well within this
  retry: { deadlineMs: 5_000, onRetry: (error) => retries.push(error) },
  // the link server only; no other loopback address or name
  urls: parseUrlPolicy(`127.0.0.1:${port}`),
};
let n = 0;
/** Keys of one copy, by the format its bytes turn out to be. */
function target(): ImageTarget & { keys: Map<string, string> } {
  const prefix = `files/t${++n}`;
  const keys = new Map<string, string>();
  const named: ImageTarget = (format) => {
    keys.set(format, `${prefix}.${format}`);
    return { key: `${prefix}.${format}`, contentType: `image/${format}` };
  };
  return Object.assign(named, { keys });
}
const head = (key: string) => store.client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
const uploadsFolder = join((s3 as { directory: string }).directory, bucket, '._S3rver_uploads');
const uploadsLeft = () => (existsSync(uploadsFolder) ? readdirSync(uploadsFolder) : []);
const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.fail('the copy succeeded'),
    (error: unknown) => error as Error,
  );

beforeEach(() => {
  gets.length = 0;
  sent.length = 0;
  retries.length = 0;
});

describe('stored by what the bytes are, never by what the vendor says', () => {
  test.each([
    ['a PNG labelled image/jpeg at a .jpg link', '/png-as-jpeg.jpg', 'png', png, 64],
    ['a JPEG labelled application/octet-stream', '/jpeg-as-octets', 'jpeg', jpeg, 64],
    ['a WebP', '/webp', 'webp', webp, 1],
  ])('%s: key, Content-Type and dimensions from the bytes, the file whole', async (_label, path, format, bytes, side) => {
    const to = target();
    const stored = await copyUrlToStore(`${origin}${path}`, store, to, limits);
    expect(stored).toEqual({ bytes: bytes.length, format, contentType: `image/${format}`, dimensions: { width: side, height: side } });
    const key = to.keys.get(format)!;
    expect((await head(key)).ContentType).toBe(`image/${format}`);
    expect((await getObjectBuffer(store, key)).equals(bytes)).toBe(true);
    expect(gets).toEqual([path]);
  });

  test('an inline (base64) image is sniffed the same way', async () => {
    const to = target();
    expect(await putImageToStore(store, to, png, limits.retry)).toEqual({
      bytes: png.length,
      format: 'png',
      contentType: 'image/png',
      dimensions: { width: 64, height: 64 },
      kept: png, // in memory anyway: its answer may carry it
    });
    expect((await getObjectBuffer(store, to.keys.get('png')!)).equals(png)).toBe(true);
  });

  test('a copy asked to keep its bytes keeps them while they fit, none past that', async () => {
    const kept = await copyUrlToStore(`${origin}/png-as-jpeg.jpg`, store, target(), { ...limits, keepUpTo: png.length });
    expect(kept.kept?.equals(png)).toBe(true);
    const big = target();
    const streamed = await copyUrlToStore(`${origin}/no-length-within-cap`, store, big, { ...limits, keepUpTo: MiB });
    expect(streamed.bytes).toBe(5 * MiB + 123_457);
    expect(streamed.kept).toBeUndefined();
    expect((await getObjectBuffer(store, big.keys.get('png')!)).length).toBe(5 * MiB + 123_457);
    expect(
      (await copyUrlToStore(`${origin}/png-as-jpeg.jpg`, store, target(), { ...limits, keepUpTo: png.length - 1 })).kept,
    ).toBeUndefined();
  });
});

describe('a result that is no image is a final vendor fault: one GET, nothing stored, 502', () => {
  test.each([
    ['an HTML page labelled image/jpeg', '/page.jpg', "image/jpeg, starts with '<!doctype ht'"],
    ['an SVG', '/drawing.png', "image/svg+xml, starts with '<svg xmlns=\"'"],
    ['an empty body', '/empty.jpg', 'image/jpeg, an empty body'],
  ])('%s', async (_label, path, arrived) => {
    const to = target();
    const error = await failureOf(copyUrlToStore(`${origin}${path}`, store, to, limits));
    expect(error).toBeInstanceOf(NotAnImage);
    expect((error as NotAnImage).arrived).toBe(arrived);
    expect(gets).toEqual([path]);
    expect(retries).toEqual([]);
    // no key was even named, so nothing can have been written
    expect(to.keys.size).toBe(0);
    expect(sent).toEqual([]);
    const answer = storeError('image 0', error);
    expect(answer).toMatchObject({ code: 'upstream_failed', status: 502, retryable: false });
    expect(answer.message).toBe(`the upstream's image 0 is not an image (${arrived})`);
  });

  test('inline bytes that are markup', async () => {
    const to = target();
    const error = await failureOf(putImageToStore(store, to, html, limits.retry));
    expect(error).toBeInstanceOf(NotAnImage);
    expect(to.keys.size).toBe(0);
    expect(sent).toEqual([]);
  });
});

describe('bounded while streaming, with or without Content-Length', () => {
  test('no Content-Length, within the cap: a multipart upload, stored whole', async () => {
    const to = target();
    const stored = await copyUrlToStore(`${origin}/no-length-within-cap`, store, to, limits);
    expect(stored.bytes).toBe(5 * MiB + 123_457);
    expect((await head(to.keys.get('png')!)).ContentLength).toBe(stored.bytes);
    expect(sent).toContain('CreateMultipartUpload');
    expect(sent).toContain('CompleteMultipartUpload');
    expect(uploadsLeft()).toEqual([]);
  });

  test('no Content-Length, over the cap: FileTooLarge after one download, the upload aborted, no part left', async () => {
    const to = target();
    const error = await failureOf(copyUrlToStore(`${origin}/no-length-over-cap`, store, to, limits));
    expect(error).toBeInstanceOf(FileTooLarge);
    expect(gets).toEqual(['/no-length-over-cap']);
    expect(retries).toEqual([]);
    // it went the multipart way (a part of 5 MiB was stored) and was aborted by the store
    expect(sent).toEqual(expect.arrayContaining(['CreateMultipartUpload', 'UploadPart', 'AbortMultipartUpload']));
    expect(sent).not.toContain('CompleteMultipartUpload');
    expect(uploadsLeft()).toEqual([]);
    await expect(head(to.keys.get('png')!)).rejects.toSatisfy(isMissingObject);
    expect(storeError('image 0', error)).toMatchObject({ code: 'upstream_failed', status: 502, retryable: false });
  });

  test('a store that fails the abort (405, as s3rver did) does not hide the size error behind a store outage', async () => {
    const refusing = createBlobStore({ ...s3.env, S3_FORCE_PATH_STYLE: true });
    refusing.client.middlewareStack.add(
      (next, context) => (args) => {
        if (context.commandName !== 'AbortMultipartUploadCommand') return next(args);
        return Promise.reject(
          Object.assign(new Error('The specified method is not allowed'), { name: 'MethodNotAllowed', $metadata: { httpStatusCode: 405 } }),
        );
      },
      { step: 'initialize', name: 'refuse-abort' },
    );
    const error = await failureOf(copyUrlToStore(`${origin}/no-length-over-cap`, refusing, target(), limits));
    expect(error).toBeInstanceOf(FileTooLarge);
    expect(gets).toEqual(['/no-length-over-cap']);
    expect(retries).toEqual([]);
    // what that store kept is its own to sweep; this test's store drops it
    for (const upload of uploadsLeft()) rmSync(join(uploadsFolder, upload), { recursive: true });
  });

  test('a Content-Length over the cap: refused before a byte is read', async () => {
    const error = await failureOf(copyUrlToStore(`${origin}/length-over-cap`, store, target(), limits));
    expect(error).toBeInstanceOf(FileTooLarge);
    expect(gets).toEqual(['/length-over-cap']);
    expect(sent).toEqual([]);
  });
});

describe('redirects on a result link', () => {
  test(`followed up to ${MAX_REDIRECTS} hops, each fetched once`, async () => {
    const to = target();
    expect((await copyUrlToStore(`${origin}/hop/${MAX_REDIRECTS}`, store, to, limits)).format).toBe('png');
    expect(gets).toEqual(['/hop/3', '/hop/2', '/hop/1', '/png-as-jpeg.jpg']);
  });

  const refused: Array<[string, string, RegExp, string[]]> = [
    [
      'one hop more than allowed',
      `/hop/${MAX_REDIRECTS + 1}`,
      /^the link redirected more than 3 times$/,
      ['/hop/4', '/hop/3', '/hop/2', '/hop/1'],
    ],
    [
      'a hop to a private address',
      '/to-private',
      /^after 1 redirect, the link points at 10\.0\.0\.1, a private address the relay does not fetch$/,
      ['/to-private'],
    ],
    [
      'a hop to a name that resolves to loopback (checked at connect)',
      '/to-loopback-by-name',
      /^after 1 redirect, localhost resolves to (127\.0\.0\.1|::1), a private address the relay does not fetch$/,
      ['/to-loopback-by-name'],
    ],
    ['a hop to another scheme', '/to-file', /^after 1 redirect, the link uses file:, not http or https$/, ['/to-file']],
    ['a redirect with no Location', '/redirect-nowhere', /^the link answered HTTP 302 without a usable Location$/, ['/redirect-nowhere']],
    ['a 4xx (an expired link)', '/expired', /^download answered HTTP 403$/, ['/expired']],
  ];
  test.each(refused)('%s: LinkRefused, never retried, the refused hop never fetched', async (_label, path, message, fetched) => {
    const error = await failureOf(copyUrlToStore(`${origin}${path}`, store, target(), limits));
    expect(error).toBeInstanceOf(LinkRefused);
    expect(error.message).toMatch(message);
    expect(gets).toEqual(fetched);
    expect(retries).toEqual([]);
    expect(sent).toEqual([]);
    const answer = storeError('image 0', error);
    expect(answer).toBeInstanceOf(AppError);
    expect(answer).toMatchObject({ code: 'upstream_failed', status: 502, retryable: false });
  });
});
