import { closestMatch } from 'leven';

/**
 * The catalog model a mistyped id most likely meant: the only one it starts (a date suffix left
 * off), else the nearest by edit distance within half its length; undefined when none is near
 * enough to be the one meant (another vendor's id, say).
 */
export function nearestModel(asked: string, known: readonly string[]): string | undefined {
  const prefixed = asked.length >= 3 ? known.filter((id) => id.startsWith(asked)) : [];
  if (prefixed.length === 1) return prefixed[0];
  return closestMatch(asked, known, { maxDistance: Math.ceil(asked.length / 2) });
}
