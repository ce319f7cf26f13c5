/**
 * Money in the relay is integers of micro-units: 1,000,000 micro-units are one unit of the
 * account's currency. The admin API takes and answers micro-units; people (the console, the
 * admin and batch CLIs, the docs) read and type units. These two functions are the only
 * conversion, so every screen shows the same figure for the same amount.
 */
export const MICRO_PER_UNIT = 1_000_000;

/**
 * The ceiling of every amount: no price, credit or reservation is larger, and an account never
 * holds more (its balance and what is reserved from it, together). 10^15 micro-units are one
 * billion units, just past the most `parseUnits` reads; sums of such amounts (spent, the usage aggregates)
 * stay far below 2^53, where JavaScript's numbers and Redis's Lua stop counting every micro-unit.
 * A credit that would pass it is refused, never rounded.
 */
export const MAX_MICRO_UNITS = 1_000_000_000_000_000;

/**
 * Micro-units as units, exactly: thousands grouped, at least 2 decimals and as many more as the
 * amount needs (at most 6, which is every micro-unit): 12.50, 0.175, 0.00005. Never rounded,
 * so no two places can round one amount two ways.
 */
export function formatMoney(micro: number): string {
  const whole = Math.round(micro);
  const abs = Math.abs(whole);
  const fraction = String(abs % MICRO_PER_UNIT)
    .padStart(6, '0')
    .replace(/0+$/, '')
    .padEnd(2, '0');
  return `${whole < 0 ? '-' : ''}${Math.floor(abs / MICRO_PER_UNIT).toLocaleString('en-US')}.${fraction}`;
}

/**
 * "12.5" or "-0.000001" (units, as a person types them) -> integer micro-units, exactly (the
 * decimal string is split, never multiplied as a float), or undefined when it is not such a number.
 */
export function parseUnits(text: string): number | undefined {
  const match = /^\s*([-+]?)(\d{1,9})(?:\.(\d{1,6}))?\s*$/.exec(text);
  if (!match) return undefined;
  const [, sign, whole = '0', fraction = ''] = match;
  const micro = Number(whole) * MICRO_PER_UNIT + Number(fraction.padEnd(6, '0'));
  return sign === '-' ? -micro : micro;
}
