import { expect, test } from 'vitest';
import { loadCatalog } from '@relay/core';
import { JOB_META_VERSION } from './meta.js';
import { doorOfStored } from './meta-migration.js';
import { createDoors } from './doors/registry.js';

const doors = createDoors(loadCatalog({}));

test("a record from before versions is answered through its capability's first dialect; today's through its own door", () => {
  expect(doors.ofJob('images', {}).name).toBe('openai.images.generations');
  expect(doors.ofJob('speech', {}).name).toBe('gemini.generateContent');
  expect(doors.ofJob('speech', { v: JOB_META_VERSION, door: 'openai.audio.speech' }).name).toBe(
    doorOfStored('speech', { door: 'openai.audio.speech' }),
  );
});

test("a versioned record that names no door, or one this relay lacks, is a bug said as one, not another dialect's answer", () => {
  expect(doorOfStored('images', { v: JOB_META_VERSION })).toBeUndefined();
  expect(() => doors.ofJob('images', { v: JOB_META_VERSION })).toThrow(/names no door this relay has \(none\)/);
  expect(() => doors.ofJob('images', { v: JOB_META_VERSION, door: 'gone.door' })).toThrow(/\(gone.door\)/);
});
