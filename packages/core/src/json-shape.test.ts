import { describe, expect, test } from 'vitest';
import { checkJsonShape, DEFAULT_JSON_SHAPE, formatSize, inspectJsonShape } from './json-shape.js';

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

  test('a string longer than any field takes is refused before parsing, naming its field, its size and the limit', () => {
    expect(check(JSON.stringify({ prompt: 'p'.repeat(65 * 1024) }))).toBe(
      'prompt: a string of 65 KB (66560 bytes); no field of this endpoint takes more than 64 KB (65536 bytes)',
    );
    expect(check(JSON.stringify({ prompt: 'p'.repeat(64 * 1024) }))).toBeUndefined();
  });

  test('the field of a string too long is named as the client wrote it, wherever it stands', () => {
    const limits = { ...DEFAULT_JSON_SHAPE, maxStringBytes: 100 };
    const long = 'x'.repeat(101);
    const at = (value: unknown) => inspectJsonShape(Buffer.from(JSON.stringify(value)), limits);
    expect(at({ model: 'm', image: long })).toMatchObject({ kind: 'string', field: 'image', bytes: 101, limit: 100 });
    expect(at({ model: 'm', image: ['a', 'b', long] })).toMatchObject({ field: 'image[2]' });
    expect(at({ images: [{ image_url: 'a' }, { file_id: 'f', image_url: long }] })).toMatchObject({ field: 'images[1].image_url' });
    expect(at({ contents: [{ parts: [{ text: 'a' }, { text: long }] }] })).toMatchObject({ field: 'contents[0].parts[1].text' });
    // names decoded as JSON decodes them; members before and after an array do not leak into the path
    expect(at({ 'sp\u00e9c': { a: [1, [2, 3], 4], 'b"q': long } })).toMatchObject({ field: 'sp\u00e9c.b"q' });
    expect(at({ a: [1, 2], b: { c: 'x' }, d: long })).toMatchObject({ field: 'd' });
    expect(at(long)).toMatchObject({ field: '', message: expect.stringMatching(/^the JSON body holds a string of/) });
    expect(at({ [long]: 1 })).toMatchObject({ field: '', message: expect.stringMatching(/^the JSON body holds a member name of/) });
    expect(at({ a: { [long]: 1 } })).toMatchObject({ field: 'a', message: expect.stringMatching(/^a: a member name of/) });
    expect(at({ image: `data:image/png;base64,${long}` })).toMatchObject({ field: 'image', dataUrl: true });
  });

  test('sizes read in MB (2^20 bytes) with one decimal, or KB below one MB', () => {
    expect(formatSize(27_648_735)).toBe('26.4 MB');
    expect(formatSize(10 * 1024 * 1024)).toBe('10 MB');
    expect(formatSize(600_000)).toBe('586 KB');
  });

  test('a multipart form sent as JSON is refused for what it is, not for the brackets its file holds', () => {
    const file = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.from('{['.repeat(100))]);
    const form = Buffer.concat([
      Buffer.from('--------------------------d74496d66958873e\r\nContent-Disposition: form-data; name="image"; filename="x.png"\r\n\r\n'),
      file,
      Buffer.from('\r\n--------------------------d74496d66958873e--\r\n'),
    ]);
    expect(inspectJsonShape(form)).toMatchObject({ kind: 'multipart', head: '"--------------------------d74496d66958873e"' });
    expect(inspectJsonShape(Buffer.concat([Buffer.from(' \r\n'), form]))).toMatchObject({ kind: 'multipart' });
    expect(inspectJsonShape(file)).toMatchObject({ kind: 'not_json', message: 'not JSON: it starts with ".PNG"' });
    expect(check('prompt=a+cat&model=m')).toBe('not JSON: it starts with "prompt=a+cat&model=m"');
    // what may begin JSON is left to the counts and JSON.parse; a negative number is not a boundary
    for (const start of ['{}', '[]', '"s"', '-1', '7', 'true', 'false', 'null', '\ufeff{}', '  \n{}']) expect(check(start)).toBeUndefined();
  });

  test('real deep JSON is still refused as deep, whatever comes first', () => {
    expect(check(`  ${'['.repeat(33)}${']'.repeat(33)}`)).toMatch(/nests deeper than 32 levels/);
    // stray closers cannot buy extra depth
    expect(check(`{"a":1}]]]]]]]]]]${'['.repeat(33)}`)).toMatch(/nests deeper than 32 levels/);
  });
});
