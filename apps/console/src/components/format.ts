/** Micro-units (integers, 1,000,000 = one unit of the account's currency) for people. */
export function money(micro: number): string {
  const units = micro / 1_000_000;
  return units.toLocaleString('en-US', {
    minimumFractionDigits: 2,
    maximumFractionDigits: Math.abs(micro) < 10_000 && micro !== 0 ? 6 : 2,
  });
}

/**
 * "12.5" or "-0.000001" (units) -> integer micro-units, exactly (no floating point), or
 * undefined when it is not such a number.
 */
export function parseUnits(text: string): number | undefined {
  const match = /^\s*(-?)(\d{1,9})(?:\.(\d{1,6}))?\s*$/.exec(text);
  if (!match) return undefined;
  const [, sign, whole, fraction = ''] = match;
  const micro = Number(whole) * 1_000_000 + Number(fraction.padEnd(6, '0'));
  return sign ? -micro : micro;
}

export const count = (n: number) => n.toLocaleString('en-US');

export const dateTime = (ms: number | string | null | undefined) =>
  ms === null || ms === undefined ? '—' : new Date(ms).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' });

/** "3 min ago", "2 h ago", else the date. */
export function ago(ms: number | null, now = Date.now()): string {
  if (ms === null) return 'never';
  const minutes = Math.floor((now - ms) / 60_000);
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes} min ago`;
  if (minutes < 48 * 60) return `${Math.floor(minutes / 60)} h ago`;
  return dateTime(ms);
}
