import type { Request } from 'express';

export interface Preferences {
  /** `Prefer: respond-async`: answer 202 with the job at once. */
  respondAsync: boolean;
  /** `Prefer: wait=N`: how many seconds the caller is willing to wait. */
  waitSeconds?: number;
}

/** RFC 7240 Prefer, as far as the relay honours it; unknown preferences are ignored, as the RFC says. */
export function parsePrefer(req: Request): Preferences {
  const prefs: Preferences = { respondAsync: false };
  for (const part of (req.get('prefer') ?? '').split(',')) {
    const [name = '', value] = part
      .split(';')[0]!
      .trim()
      .split('=')
      .map((s) => s.trim().replace(/^"|"$/g, ''));
    if (name.toLowerCase() === 'respond-async') prefs.respondAsync = true;
    if (name.toLowerCase() === 'wait' && value && /^\d+$/.test(value)) prefs.waitSeconds = Number(value);
  }
  return prefs;
}

/** The wait budget in ms, and the Preference-Applied value that tells the caller what was honoured. */
export function waitBudget(prefs: Preferences, defaultMs: number, maxMs: number): { budgetMs: number; applied?: string } {
  if (prefs.respondAsync) return { budgetMs: 0, applied: 'respond-async' };
  if (prefs.waitSeconds !== undefined) {
    const budgetMs = Math.min(prefs.waitSeconds * 1000, maxMs);
    return { budgetMs, applied: `wait=${Math.round(budgetMs / 1000)}` };
  }
  return { budgetMs: defaultMs };
}
