import { describe, expect, test } from 'vitest';
import { AppError } from '@relay/core';
import type { ImageJobResult, StoredFile } from '@relay/jobs';
import { FileTooLarge, storeError } from './copy-to-store.js';
import { NOT_AN_IMAGE, storeDelivered } from './image-slots.js';
import { notAnImage } from './sniff-image.js';

/** A set's slots as the processor stores them: each either stored, or failing as storeSlot throws (storeError). */
const file = (index: number): StoredFile => ({ index, fileId: `f-${index}.png`, size: '64x64', bytes: 100, contentType: 'image/png' });
const html = (index: number) => storeError(`image ${index}`, notAnImage(Buffer.from('<!doctype html>'), 'image/jpeg'));
type Outcome = StoredFile | AppError;
const run = (outcomes: Record<number, Outcome>, failed: ImageJobResult['failed'] = []) =>
  storeDelivered(
    Object.keys(outcomes).map((index) => ({ index: Number(index) })),
    failed,
    async ({ index }) => {
      const outcome = outcomes[index]!;
      if (outcome instanceof AppError) throw outcome;
      return outcome;
    },
  );

describe('a slot whose bytes are no image is a failed slot of its set', () => {
  test('the others deliver; it joins failed in slot order, named, and is not among the images (not charged)', async () => {
    const failed: ImageJobResult['failed'] = [{ index: 1, code: 'OutputImageSensitiveContentDetected', message: 'refused' }];
    const images = await run({ 0: html(0), 2: file(2), 3: html(3) }, failed);
    expect(images).toEqual([file(2)]);
    expect(failed).toEqual([
      { index: 0, code: NOT_AN_IMAGE, message: "the upstream's image 0 is not an image (image/jpeg, starts with '<!doctype ht')" },
      { index: 1, code: 'OutputImageSensitiveContentDetected', message: 'refused' },
      { index: 3, code: NOT_AN_IMAGE, message: "the upstream's image 3 is not an image (image/jpeg, starts with '<!doctype ht')" },
    ]);
  });

  test('a set none of whose slots is an image fails with the first slot 502, final; failed is left as it was', async () => {
    const failed: ImageJobResult['failed'] = [];
    const error = await run({ 1: html(1), 0: html(0) }, failed).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'upstream_failed', status: 502, retryable: false });
    expect((error as AppError).message).toMatch(/^the upstream's image 0 is not an image/);
    expect(failed).toEqual([]);
  });

  test('any other failure fails the set as before (a store outage stays retryable)', async () => {
    const outage = storeError('image 1', new Error('connect ECONNREFUSED'));
    await expect(run({ 0: html(0), 1: outage })).rejects.toBe(outage);
    const tooLarge = storeError('image 1', new FileTooLarge('file exceeds 10 bytes'));
    await expect(run({ 0: file(0), 1: tooLarge })).rejects.toBe(tooLarge);
  });

  test('a set of images is stored as it was', async () => {
    const failed: ImageJobResult['failed'] = [];
    expect(await run({ 0: file(0), 1: file(1) }, failed)).toEqual([file(0), file(1)]);
    expect(failed).toEqual([]);
  });
});
