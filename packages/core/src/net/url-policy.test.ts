import { describe, expect, test } from 'vitest';
import { checkUrl, isPrivateAddress, parseUrlPolicy, refusedLink } from './url-policy.js';

describe('the URL policy', () => {
  test.each([
    '127.0.0.1',
    '10.0.0.5',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    '::',
    'fd00::1',
    'fe80::1',
    '::ffff:10.0.0.1',
    'not-an-ip',
  ])('%s is inside', (address) => expect(isPrivateAddress(address)).toBe(true));
  test.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700::6810:84e5', '::ffff:8.8.8.8'])('%s is outside', (address) => {
    expect(isPrivateAddress(address)).toBe(false);
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
