import sharp from 'sharp';
import { describe, expect, test } from 'vitest';
import { renderImage } from '@relay/simulator';
import { sniffImage } from '../storage/sniff-image.js';
import { NotAnImage } from '../storage/sniff-image.js';
import { convertImage } from './convert-image.js';

const jpeg = renderImage({ width: 640, height: 480, format: 'jpeg', watermark: false, hue: 2 });
const alphaPng = renderImage({ width: 320, height: 200, format: 'png', watermark: false, hue: 5, alpha: true });

describe('convertImage', () => {
  test.each(['png', 'webp', 'jpeg'] as const)('a JPEG becomes %s, same dimensions', async (format) => {
    const out = await convertImage(jpeg, { format });
    expect(sniffImage(out.subarray(0, 16))).toBe(format);
    expect(await sharp(out).metadata()).toMatchObject({ format, width: 640, height: 480 });
  });

  test('a lower output_compression makes a smaller webp and jpeg (the level is the encoder quality)', async () => {
    for (const format of ['webp', 'jpeg'] as const) {
      const high = await convertImage(jpeg, { format, quality: 95 });
      const low = await convertImage(jpeg, { format, quality: 10 });
      expect(low.length, format).toBeLessThan(high.length);
    }
  });

  test('a PNG with alpha keeps it as webp, and is flattened as jpeg', async () => {
    expect(await sharp(await convertImage(alphaPng, { format: 'webp' })).metadata()).toMatchObject({ hasAlpha: true, width: 320 });
    expect(await sharp(await convertImage(alphaPng, { format: 'jpeg' })).metadata()).toMatchObject({ hasAlpha: false, channels: 3 });
  });

  test('bytes that only look like an image are no image: the slot was not delivered', async () => {
    const truncated = jpeg.subarray(0, 200);
    await expect(convertImage(truncated, { format: 'png' })).rejects.toBeInstanceOf(NotAnImage);
  });
});
