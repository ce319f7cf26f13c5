import type { Request } from 'express';
import { describe, expect, test } from 'vitest';
import { parseCancelAfter } from './cancel-after.js';

const sent = (value?: string) => ({ get: (name: string) => (name === 'cancel-after' ? value : undefined) }) as unknown as Request;

describe('Cancel-After', () => {
  test.each([
    ['30s', 30_000],
    ['5m', 300_000],
    ['1h', 3_600_000],
    ['250ms', 250],
    ['12', 12_000],
    ['1.5', 1_500],
    [' 2M ', 120_000],
  ])('%s is %i ms', (value, ms) => expect(parseCancelAfter(sent(value))).toBe(ms));

  test('absent: no deadline', () => expect(parseCancelAfter(sent())).toBeUndefined());

  test.each(['', 'soon', '0', '-5s', '5d', '25h', '1e3', '30 s s'])('"%s" is a 400 naming the header', (value) => {
    expect(() => parseCancelAfter(sent(value))).toThrow(expect.objectContaining({ status: 400, param: 'Cancel-After' }));
  });
});
