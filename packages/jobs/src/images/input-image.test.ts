import { describe, expect, test } from 'vitest';
import { decodeDataImage, looksLike, MAX_IMAGE_URL_CHARS, parseInputImage } from './input-image.js';

describe('input images', () => {
  test('a data URI keeps its format and data', () => {
    expect(parseInputImage('data:image/jpeg;base64,/9j/4AAQ')).toEqual({ kind: 'data', format: 'jpeg', base64: '/9j/4AAQ' });
  });

  test('a URL passes through as given', () => {
    expect(parseInputImage('https://x.test/a.png?sig=1')).toEqual({ kind: 'url', url: 'https://x.test/a.png?sig=1' });
  });

  test.each([
    ['data:image/Jpeg;base64,AAAA', /lower case/],
    ['data:text/plain;base64,AAAA', /data:image/],
    ['data:image/png;base64,', /empty/],
    ['javascript:alert(1)', /http or https/],
    ['not a url at all', /http\(s\) image URL/],
    [`https://x.test/${'a'.repeat(MAX_IMAGE_URL_CHARS)}`, /at most 4096 characters/],
  ])('%s is refused', (value, message) => {
    expect(parseInputImage(value)).toMatch(message);
  });

  test('decoded bytes must match the declared format', () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]);
    expect(looksLike('png', png)).toBe(true);
    expect(looksLike('jpeg', png)).toBe(false);
    expect(looksLike('jpeg', Buffer.from([0xff, 0xd8, 0xff, 0xe0]))).toBe(true);
  });

  describe('decoding inline images', () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);
    const data = (base64: string) => ({ kind: 'data' as const, format: 'png' as const, base64 });

    test('clean base64 of the declared format decodes', () => {
      expect(decodeDataImage(data(png.toString('base64')), 1024)).toEqual(png);
    });
    test.each([
      ['a length that is not a multiple of 4', 'abc', /multiple of 4/],
      ['characters outside base64', `${png.toString('base64').slice(0, -4)}$$$$`, /not valid base64/],
      ['padding in the middle', `iVBO=w0K${png.toString('base64').slice(8)}`, /not valid base64/],
      ['base64url (- and _)', Buffer.from([0xfb, 0xff, 0xbf, ...png]).toString('base64url'), /base64url .* not base64/],
      ['another format', Buffer.from([0xff, 0xd8, 0xff, 0xe0]).toString('base64'), /png image/],
    ])('%s is refused', (_label, base64, message) => {
      expect(decodeDataImage(data(base64), 1024)).toMatch(message);
    });
    test('an image over the limit is refused from its length alone', () => {
      expect(decodeDataImage(data('A'.repeat(4 * 1024 * 1024)), 1024)).toMatch(/3145728 bytes; input images may be at most 1024/);
    });
  });
});
