import { describe, expect, test } from 'vitest';
import { looksLike, parseInputImage } from './input-image.js';

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
    ['data:image/png;base64,AAA', /base64/],
    ['javascript:alert(1)', /http or https/],
  ])('%s is refused', (value, message) => {
    expect(parseInputImage(value)).toMatch(message);
  });

  test('decoded bytes must match the declared format', () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]);
    expect(looksLike('png', png)).toBe(true);
    expect(looksLike('jpeg', png)).toBe(false);
    expect(looksLike('jpeg', Buffer.from([0xff, 0xd8, 0xff, 0xe0]))).toBe(true);
  });
});
