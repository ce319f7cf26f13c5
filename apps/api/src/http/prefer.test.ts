import type { Request } from 'express';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { parsePrefer, waitBudget } from './prefer.js';

const prefer = (header: string | undefined) => parsePrefer({ get: (name: string) => (name === 'prefer' ? header : undefined) } as Request);

describe('Prefer', () => {
  test.each<[string | undefined, ReturnType<typeof parsePrefer>]>([
    [undefined, { respondAsync: false }],
    ['respond-async', { respondAsync: true }],
    ['wait=5', { respondAsync: false, waitSeconds: 5 }],
    ['Respond-Async, WAIT = "12"', { respondAsync: true, waitSeconds: 12 }],
    ['wait=5; foo=bar, handling=lenient', { respondAsync: false, waitSeconds: 5 }],
    ['wait=-1, wait=1.5, wait=, wait=abc', { respondAsync: false }],
    ['return=minimal, respond-async;x=1', { respondAsync: true }],
  ])('%j', (header, expected) => expect(prefer(header)).toEqual(expected));

  test('the budget: respond-async is none, wait is capped, nothing is the default', () => {
    expect(waitBudget({ respondAsync: true, waitSeconds: 9 }, 20_000, 60_000)).toEqual({ budgetMs: 0, applied: 'respond-async' });
    expect(waitBudget({ respondAsync: false, waitSeconds: 600 }, 20_000, 3_000)).toEqual({ budgetMs: 3_000, applied: 'wait=3' });
    expect(waitBudget({ respondAsync: false }, 20_000, 60_000)).toEqual({ budgetMs: 20_000 });
  });

  // the preferences the relay knows, written any way RFC 7240 allows (case, spaces, quotes,
  // parameters, order, unknown preferences beside them), parse to the same thing
  const known = fc.record({ respondAsync: fc.boolean(), waitSeconds: fc.option(fc.nat({ max: 100_000 }), { nil: undefined }) });
  const spaces = fc.constantFrom('', ' ', '  ', '\t');
  const casing = (word: string) =>
    fc
      .array(fc.boolean(), { minLength: word.length, maxLength: word.length })
      .map((up) => [...word].map((c, i) => (up[i] ? c.toUpperCase() : c)).join(''));
  const unknown = fc.constantFrom('return=minimal', 'handling=strict', 'foo', 'x-custom="a b"');
  test('property: however the known preferences are written, they parse the same', () => {
    fc.assert(
      fc.property(
        known,
        casing('respond-async'),
        casing('wait'),
        spaces,
        fc.boolean(),
        fc.boolean(),
        fc.array(unknown, { maxLength: 3 }),
        fc.integer(),
        (want, async, wait, s, quoted, withParam, others, seed) => {
          const parts: string[] = [...others];
          if (want.respondAsync) parts.push(`${s}${async}${withParam ? `${s};${s}x=1` : ''}`);
          if (want.waitSeconds !== undefined) parts.push(`${wait}${s}=${s}${quoted ? `"${want.waitSeconds}"` : want.waitSeconds}`);
          const shuffled = parts
            .map((p, i) => ({ p, k: (i * 7919 + seed) % 13 }))
            .sort((x, y) => x.k - y.k)
            .map((x) => x.p);
          expect(prefer(shuffled.join(`${s},${s}`))).toEqual({
            respondAsync: want.respondAsync,
            ...(want.waitSeconds !== undefined ? { waitSeconds: want.waitSeconds } : {}),
          });
        },
      ),
    );
  });

  test('property: any header parses without throwing, to a whole wait and a budget within its bounds', () => {
    fc.assert(
      fc.property(fc.string(), fc.nat({ max: 120_000 }), fc.nat({ max: 600_000 }), (header, defaultMs, maxMs) => {
        const prefs = prefer(header);
        if (prefs.waitSeconds !== undefined) expect(Number.isSafeInteger(prefs.waitSeconds) && prefs.waitSeconds >= 0).toBe(true);
        const { budgetMs } = waitBudget(prefs, defaultMs, maxMs);
        expect(budgetMs).toBeGreaterThanOrEqual(0);
        if (prefs.respondAsync || prefs.waitSeconds !== undefined) expect(budgetMs).toBeLessThanOrEqual(maxMs);
      }),
    );
  });
});
