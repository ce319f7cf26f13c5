import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { fingerprint } from './idempotency.js';

/** The same value with every object's keys in another order. */
function reordered(value: unknown, flip: boolean): unknown {
  if (Array.isArray(value)) return value.map((v) => reordered(v, flip));
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).map(([k, v]) => [k, reordered(v, !flip)] as const);
    return Object.fromEntries(flip ? entries.reverse() : entries);
  }
  return value;
}

/** JSON with object keys sorted: equal exactly when two bodies ask the same thing. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

describe('the idempotency fingerprint', () => {
  test('key order does not matter; values, their types and their grouping do', () => {
    const route = '/v1/images/generations';
    expect(fingerprint(route, { a: 1, b: ['x'] })).toBe(fingerprint(route, { b: ['x'], a: 1 }));
    const distinct = [
      { a: '1' },
      { a: 1 },
      { a: true },
      { a: null },
      { a: ['ab'] },
      { a: ['a', 'b'] },
      { ab: '' },
      ['a', 'b'],
      'ab',
      { a: {} },
    ];
    expect(new Set(distinct.map((body) => fingerprint(route, body))).size).toBe(distinct.length);
    expect(fingerprint('/v1/a', {})).not.toBe(fingerprint('/v1/b', {}));
  });

  test('property: the same body with its keys in any order has the same fingerprint', () => {
    fc.assert(
      fc.property(fc.string(), fc.jsonValue(), fc.boolean(), (route, body, flip) => {
        expect(fingerprint(route, reordered(body, flip))).toBe(fingerprint(route, body));
      }),
    );
  });

  test('property: bodies that differ have different fingerprints, and so do routes', () => {
    fc.assert(
      fc.property(fc.string(), fc.jsonValue(), fc.jsonValue(), (route, a, b) => {
        fc.pre(canonical(a) !== canonical(b));
        expect(fingerprint(route, a)).not.toBe(fingerprint(route, b));
      }),
    );
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.jsonValue(), (r1, r2, body) => {
        fc.pre(r1 !== r2 && !r1.includes('\n') && !r2.includes('\n'));
        expect(fingerprint(r1, body)).not.toBe(fingerprint(r2, body));
      }),
    );
  });
});
