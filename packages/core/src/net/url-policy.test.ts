import { describe, expect, test } from 'vitest';
import { checkUrl, parseUrlPolicy, refusedLink } from './url-policy.js';

describe('the URL policy', () => {
  test('an address literal is judged by isPublicAddress, IPv4 carried in IPv6 included', async () => {
    const policy = parseUrlPolicy('');
    expect(await checkUrl('http://[2002:a9fe:a9fe::1]/x.png', policy)).toMatchObject({ ok: false, retryable: false });
    expect(await checkUrl('http://[2002:808:808::1]/x.png', policy)).toEqual({ ok: true });
    expect(refusedLink(new URL('http://[64:ff9b::a00:1]/x'), policy)).toMatch(/private address/);
    expect(refusedLink(new URL('http://[64:ff9b::808:808]/x'), policy)).toBeUndefined();
  });

  test('an allowlisted host:port passes whatever it resolves to; the same host on another port does not', async () => {
    const policy = parseUrlPolicy(' 127.0.0.1:4010 , simulator:4010');
    expect(await checkUrl('http://127.0.0.1:4010/x.png', policy)).toEqual({ ok: true });
    expect(await checkUrl('http://127.0.0.1:4011/x.png', policy)).toMatchObject({ ok: false });
    expect(refusedLink(new URL('http://127.0.0.1:4010/x'), policy)).toBeUndefined();
    expect(refusedLink(new URL('http://127.0.0.1:80/x'), policy)).toMatch(/private address/);
  });

  test('`*` allows every host (a relay entirely on a private network)', async () => {
    expect(await checkUrl('http://10.0.0.1/x.png', parseUrlPolicy('*'))).toEqual({ ok: true });
  });

  test('only http and https', async () => {
    expect(await checkUrl('file:///etc/passwd', parseUrlPolicy(''))).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/http or https/),
    });
    expect(refusedLink(new URL('ftp://example.com/x'), parseUrlPolicy(''))).toMatch(/not http or https/);
  });
});
