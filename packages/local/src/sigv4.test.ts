import { describe, expect, test } from 'vitest';
import { verifySigV4 } from './sigv4.js';

/**
 * AWS's published Signature Version 4 example for S3 ("GET Object", Authenticating Requests:
 * Using the Authorization Header): the same keys, time and request give the same signature.
 */
const keys = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };
const at = Date.UTC(2013, 4, 24);
const example = {
  method: 'GET',
  url: '/test.txt',
  headers: {
    host: 'examplebucket.s3.amazonaws.com',
    range: 'bytes=0-9',
    'x-amz-content-sha256': 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    'x-amz-date': '20130524T000000Z',
    authorization:
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
  },
};

describe('header signatures', () => {
  test("AWS's own example verifies", () => {
    expect(verifySigV4(example, keys, at)).toEqual({ ok: true });
  });

  test('a changed signed header, path, method or secret does not', () => {
    const changed = (patch: Partial<typeof example>) => verifySigV4({ ...example, ...patch }, keys, at);
    expect(changed({ headers: { ...example.headers, range: 'bytes=0-99' } })).toMatchObject({ ok: false, code: 'SignatureDoesNotMatch' });
    expect(changed({ url: '/test.txt2' })).toMatchObject({ ok: false, code: 'SignatureDoesNotMatch' });
    expect(changed({ method: 'DELETE' })).toMatchObject({ ok: false, code: 'SignatureDoesNotMatch' });
    expect(verifySigV4(example, { ...keys, secretAccessKey: 'other' }, at)).toMatchObject({ ok: false, code: 'SignatureDoesNotMatch' });
  });

  test('another key id, no signature, another algorithm, a stale time: refused, each saying why', () => {
    expect(verifySigV4(example, { ...keys, accessKeyId: 'OTHER' }, at)).toMatchObject({ code: 'InvalidAccessKeyId' });
    expect(verifySigV4({ ...example, headers: { host: 'x' } }, keys, at)).toMatchObject({
      code: 'AccessDenied',
      message: 'Requests must be signed',
    });
    const v2 = { ...example, headers: { ...example.headers, authorization: 'AWS AKIAIOSFODNN7EXAMPLE:frJIUN8DYpKDtOLCwo//yllqDzg=' } };
    expect(verifySigV4(v2, keys, at)).toMatchObject({ code: 'AccessDenied' });
    expect(verifySigV4(example, keys, at + 16 * 60_000)).toMatchObject({ code: 'AccessDenied', message: expect.stringMatching(/time/) });
  });

  test('a path that is not valid percent-encoding is refused, not thrown', () => {
    expect(verifySigV4({ ...example, url: '/%E0%A4%A' }, keys, at)).toMatchObject({ ok: false, code: 'AccessDenied' });
  });
});

describe('presigned queries', () => {
  // AWS's published example of a presigned GET (Query Parameters), valid for a day
  const url =
    '/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request' +
    '&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host' +
    '&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404';
  const presigned = { method: 'GET', url, headers: { host: 'examplebucket.s3.amazonaws.com' } };

  test('verifies while it lasts, and is refused once expired', () => {
    expect(verifySigV4(presigned, keys, at + 3_600_000)).toEqual({ ok: true });
    expect(verifySigV4(presigned, keys, at + 86_401_000)).toMatchObject({ ok: false, message: 'Request has expired' });
  });

  test('a tampered signature or another object is refused', () => {
    expect(verifySigV4({ ...presigned, url: url.replace(/.$/, '5') }, keys, at)).toMatchObject({ code: 'SignatureDoesNotMatch' });
    expect(verifySigV4({ ...presigned, url: url.replace('/test.txt', '/other.txt') }, keys, at)).toMatchObject({
      code: 'SignatureDoesNotMatch',
    });
  });
});
