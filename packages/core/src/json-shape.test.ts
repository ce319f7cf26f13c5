import { describe, expect, test } from 'vitest';
import { checkJsonShape, DEFAULT_JSON_SHAPE } from './json-shape.js';

const check = (text: string, limits = DEFAULT_JSON_SHAPE) => checkJsonShape(Buffer.from(text), limits);
const small = { maxDepth: 3, maxTokens: 20, maxBareBytes: 100, maxStringBytes: 8 * 1024 * 1024 };

describe('the JSON shape pre-scan', () => {
  test('ordinary request bodies pass', () => {
    expect(
      check(JSON.stringify({ model: 'm', prompt: 'p', image: ['a', 'b'], sequential_image_generation_options: { max_images: 3 } })),
    ).toBeUndefined();
    expect(check(JSON.stringify({ contents: [{ parts: [{ text: 'He said "hi" \\ and left' }] }] }))).toBeUndefined();
  });

  test('a long string costs no tokens beyond its own', () => {
    expect(check(JSON.stringify({ image: `data:image/png;base64,${'A'.repeat(5_000_000)}` }), small)).toBeUndefined();
  });

  test('brackets and commas inside strings are not structure', () => {
    expect(check(JSON.stringify({ prompt: '[[[[[{{{{{,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,' }), small)).toBeUndefined();
  });

  test('an escaped quote does not end a string, an escaped backslash before a quote does', () => {
    expect(check('{"a":"x\\"[[[[[[[[[[","b":1}', small)).toBeUndefined();
    expect(check('{"a":"x\\\\",[[[[[[1]]]]]]}', small)).toMatch(/nests deeper than 3/);
  });

  test('deep nesting is refused at the first level too deep', () => {
    expect(check(`${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`)).toMatch(/nests deeper than 32 levels/);
    expect(check(`${'['.repeat(33)}${']'.repeat(33)}`)).toMatch(/nests deeper/);
    expect(check(`${'['.repeat(32)}${']'.repeat(32)}`)).toBeUndefined();
  });

  test('a huge array is refused once it passes the token budget', () => {
    expect(check(JSON.stringify({ image: Array(1_000_000).fill('x') }))).toMatch(/more than 10000 values/);
    expect(check(`[${Array(100_000).fill('1').join(',')}]`)).toMatch(/more than 10000 values/);
  });

  test('megabytes of bare numbers are refused by the bare-byte budget', () => {
    expect(check(`{"a":${'1'.repeat(2 * 1024 * 1024)}}`)).toMatch(/bytes outside strings/);
  });

  test('a string of escaped quotes spends the token budget', () => {
    expect(check(`{"a":"${'\\"'.repeat(30)}"}`, small)).toMatch(/more than 20 values/);
  });

  test('unterminated strings and junk are left for JSON.parse to refuse', () => {
    expect(check('{"a":"never closed')).toBeUndefined();
    expect(check('not json at all')).toBeUndefined();
  });

  test('a string longer than any field takes is refused before parsing', () => {
    expect(check(JSON.stringify({ prompt: 'p'.repeat(65 * 1024) }))).toMatch(
      /string of 66560 bytes; no field of this endpoint takes more than 65536/,
    );
    expect(check(JSON.stringify({ prompt: 'p'.repeat(64 * 1024) }))).toBeUndefined();
  });
});
