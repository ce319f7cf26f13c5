import fc from 'fast-check';
import { expect, test } from 'vitest';
import { formatMoney, parseUnits } from './money.js';

test('units with 2 to 6 decimals, as many as the amount needs, never rounded', () => {
  expect(formatMoney(175_000)).toBe('0.175'); // the batch CLI once said 0.17 and the console 0.18
  expect(formatMoney(12_500_000)).toBe('12.50');
  expect(formatMoney(50)).toBe('0.00005');
  expect(formatMoney(1)).toBe('0.000001');
  expect(formatMoney(0)).toBe('0.00');
  expect(formatMoney(-20_000)).toBe('-0.02');
  expect(formatMoney(1_234_567_891_000)).toBe('1,234,567.891');
});

test('typed units become exact micro-units', () => {
  expect(parseUnits('0.25')).toBe(250_000);
  expect(parseUnits('50')).toBe(50_000_000);
  expect(parseUnits('-2.5')).toBe(-2_500_000);
  expect(parseUnits('+1')).toBe(1_000_000);
  expect(parseUnits('0.1')).toBe(100_000); // 0.1 * 1e6 as a float would be fine here, 4.35 * 1e6 would not
  expect(parseUnits('4.35')).toBe(4_350_000);
  for (const bad of ['', '1.2345678', '1e3', '1,000', 'abc', '.5', '--1']) expect(parseUnits(bad), bad).toBeUndefined();
});

test('what is shown reads back as the same amount', () => {
  fc.assert(
    fc.property(fc.integer({ min: -999_999_999_999_999, max: 999_999_999_999_999 }), (micro) => {
      expect(parseUnits(formatMoney(micro).replace(/,/g, ''))).toBe(micro);
    }),
  );
});
