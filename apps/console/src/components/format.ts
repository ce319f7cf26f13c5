/** Money: the one formatter and parser the CLIs use too (units, exact; see @relay/core/money). */
export { formatMoney as money, parseUnits } from '@relay/core/money';

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
