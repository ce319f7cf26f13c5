import { expect, test } from 'vitest';
import type { ImageSet } from '../upstreams/images.js';
import { checkpointOf, migrateCheckpoint, readCheckpoint, type Generation } from './checkpoint.js';

const answer = (url: string): ImageSet => ({ model: 'm', created: 1, data: [{ url, size: '2048x2048' }] });
const refused: Generation = { refused: { message: 'no', moderation: true } };
const generations = () =>
  new Map<number, Generation>([
    [0, { answer: answer('a'), channel: 'c1' }],
    [1, refused],
  ]);

test('a checkpoint is written with its version and read back as written', () => {
  const written = checkpointOf(generations());
  expect(written).toEqual({ v: 1, generations: { 0: { answer: answer('a'), channel: 'c1' }, 1: refused } });
  const stored: unknown = JSON.parse(JSON.stringify(written));
  expect(migrateCheckpoint(stored)).toEqual(written);
  expect(readCheckpoint(stored)).toEqual(generations());
});

test("the shapes written before the version, still in Redis for jobs queued then, come back in today's", () => {
  expect(migrateCheckpoint({ generated: answer('old') })).toEqual({ v: 1, generations: { 0: { answer: answer('old') } } });
  expect(migrateCheckpoint({ generations: { 2: refused } })).toEqual({ v: 1, generations: { 2: refused } });
});

test('a job without a checkpoint, or with one no version knows, has no generations', () => {
  for (const progress of [0, {}, undefined, { v: 2, generations: {} }, { generated: { data: 'no' } }]) {
    expect(migrateCheckpoint(progress)).toBeUndefined();
    expect(readCheckpoint(progress).size).toBe(0);
  }
});
