import { expect, test } from 'vitest';
import { loadCatalog } from '@relay/core';
import { JOB_META_VERSION } from './meta.js';
import { doorOfStored, modelOfStored } from './meta-migration.js';
import type { Payload } from './queues.js';
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

test("a job's model is its meta's; a record from before version 2 has it where its capability's payload kept it", () => {
  const meta = { requestId: 'r', accountId: 'a', keyId: 'k', createdAt: 0 };
  const speech = { meta: { ...meta, v: 1 as const }, model: 'tts-model', request: { contents: [] } } as unknown as Payload<'speech'>;
  const image = { meta, request: { model: 'image-model' } } as unknown as Payload<'images'>;
  expect(modelOfStored('speech', speech)).toBe('tts-model');
  expect(modelOfStored('images', image)).toBe('image-model');
  expect(modelOfStored('images', { ...image, meta: { ...meta, v: JOB_META_VERSION, model: 'named' } })).toBe('named');
});
