import { describe, expect, test } from 'vitest';
import { MAX_VENDOR_TEXT, sanitizeVendorText } from './sanitize.js';

describe('vendor text is cut of secrets before it goes anywhere', () => {
  test('a channel key the upstream echoed', () => {
    const key = 'ark-7f3c9a1e-2b44-4c1d-9e0f-1a2b3c4d5e6f';
    expect(sanitizeVendorText(`invalid api key ${key} for this endpoint`, [key])).toBe('invalid api key [redacted] for this endpoint');
  });

  test.each([
    ['https://user:hunter2@proxy.example/v1', 'https://[redacted]@proxy.example/v1'],
    [
      'see https://tos.example/a.png?X-Tos-Signature=248bc69d1a&X-Tos-Date=1',
      'see https://tos.example/a.png?X-Tos-Signature=[redacted]&X-Tos-Date=1',
    ],
    ['GET /v1beta/models/x?key=AIzaSyA-abcdefghijklmnopqrstuvwxyz12345 failed', 'GET /v1beta/models/x?key=[redacted] failed'],
    ['Authorization: Bearer sk-proj-abcdefghijklmnop1234', 'Authorization: Bearer [redacted]'],
    ['key AIzaSyA-abcdefghijklmnopqrstuvwxyz12345 is not valid', 'key [redacted] is not valid'],
  ])('%s', (input, output) => {
    expect(sanitizeVendorText(input)).toBe(output);
  });

  test("a vendor's request id and ordinary words are kept", () => {
    const message =
      'The request failed because the output image may contain sensitive information. Request id: 02178376375443665da4203214fbe81b3e8151fb2922fb15be564';
    expect(sanitizeVendorText(message)).toBe(message);
  });

  test('control characters and length are bounded', () => {
    expect(sanitizeVendorText('a\u0000b\u001bc\nd')).toBe('a b c\nd');
    const page = `<html>${'x'.repeat(10_000)}</html>`;
    expect(sanitizeVendorText(page)).toHaveLength(MAX_VENDOR_TEXT + 1);
  });
});
