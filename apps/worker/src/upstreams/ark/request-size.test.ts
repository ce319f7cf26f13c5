import { describe, expect, test } from 'vitest';
import { loadCatalog } from '@relay/core';
import { upstreamSize } from './request-size.js';

const models = loadCatalog({}).imageModels;
const rule = (id: string) => models[id]!.upstreamSize;

describe('SPEC size -> what each upstream model accepts', () => {
  test('5.0 takes both keywords and its full pixel range as they are', () => {
    expect(upstreamSize('3K', rule('vendor-gen-5-0-260128'))).toBe('3K');
    expect(upstreamSize('1935x5377', rule('vendor-gen-5-0-260128'))).toBe('1935x5377');
  });

  test('the SPEC default is sent explicitly', () => {
    expect(upstreamSize(undefined, rule('vendor-gen-4-5-251128'))).toBe('2048x2048');
  });

  test('a keyword the upstream lacks becomes its 1:1 preset', () => {
    expect(upstreamSize('2K', rule('vendor-gen-4-0-250828'))).toBe('2K');
    expect(upstreamSize('3K', rule('vendor-gen-4-0-250828'))).toBe('3072x3072');
    expect(upstreamSize('2K', rule('vendor-gen-3-0-t2i-250415'))).toBe('2048x2048');
  });

  test('sizes beyond the 3.0 model cap shrink to fit, keeping the ratio', () => {
    const fitted = upstreamSize('2848x1600', rule('vendor-gen-3-0-t2i-250415'));
    const [w, h] = fitted.split('x').map(Number) as [number, number];
    expect(w * h).toBeLessThanOrEqual(2048 * 2048);
    expect(w / h).toBeCloseTo(2848 / 1600, 1);
    expect(upstreamSize('3K', rule('vendor-gen-3-0-t2i-250415'))).toBe('2048x2048');
  });

  test('the edit model always gets adaptive: its output follows the input image', () => {
    expect(upstreamSize(undefined, rule('vendor-edit-3-0-i2i-250628'))).toBe('adaptive');
    expect(upstreamSize('2048x2048', rule('vendor-edit-3-0-i2i-250628'))).toBe('adaptive');
  });
});
