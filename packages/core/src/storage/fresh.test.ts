import { expect, test } from 'vitest';
import { createFreshFiles, FRESH_HELD_MAX_BYTES, FRESH_TTL_MS, parseFresh } from './fresh.js';

const file = (key: string, size: number) => ({ key, contentType: 'audio/wav', bytes: Buffer.alloc(size, 1) });

test('files heard are held until taken, each once, and not past their age', () => {
  let now = 0;
  const files = createFreshFiles(() => now);
  files.keep(file('a', 10));
  files.keep(file('b', 20));
  expect(files.heldBytes()).toBe(30);
  expect(files.take('a')?.bytes.length).toBe(10);
  expect(files.take('a')).toBeUndefined();
  now = FRESH_TTL_MS; // b is too old to answer with: dropped when asked for
  expect(files.take('b')).toBeUndefined();
  expect(files.heldBytes()).toBe(0);
  // those past their age go as new ones are heard, even if never asked for
  files.keep(file('c', 5));
  now += FRESH_TTL_MS;
  files.keep(file('d', 7));
  expect(files.heldBytes()).toBe(7);
});

test('what is held is bounded in bytes: past the bound a file heard is not kept (the store answers)', () => {
  const files = createFreshFiles(() => 0);
  const half = FRESH_HELD_MAX_BYTES / 2;
  files.keep(file('a', half));
  files.keep(file('b', half));
  files.keep(file('c', 1));
  expect(files.heldBytes()).toBe(FRESH_HELD_MAX_BYTES);
  expect(files.take('c')).toBeUndefined();
  // heard again, the same file replaces its copy
  files.keep(file('a', 3));
  expect(files.heldBytes()).toBe(half + 3);
});

test('a message is a key, a type and the bytes, which may hold anything', () => {
  const bytes = Buffer.from([0x0a, 0, 0xff, 0x0a]);
  expect(parseFresh(Buffer.concat([Buffer.from('files/x.wav\naudio/wav\n'), bytes]))).toEqual({
    key: 'files/x.wav',
    contentType: 'audio/wav',
    bytes,
  });
  expect(parseFresh(Buffer.from('no newline'))).toBeUndefined();
  expect(parseFresh(Buffer.from('one\nnewline'))).toBeUndefined();
});
