import type { Redis } from 'ioredis';
import { z } from 'zod';
import { billingKeys } from './keys.js';

/**
 * Usage aggregates, written by the settlement script itself (lua/close.lua), so a chart is a
 * handful of hash reads instead of a ledger scan:
 *   {p}:usage:day:{YYYY-MM-DD}:{accountId|*}   hash  charged:{model}, units:{model}, jobs:{model}
 *   {p}:account:{accountId}                    hash  month -> YYYY-MM, monthSpent -> charged
 * Days and months are UTC. A day's keys expire AGGREGATE_RETENTION_DAYS after that day's first
 * settlement, so Redis holds at most (accounts + 1) x models x retention days of them; the month
 * is one figure in the account's own hash, started again by its month's first settlement.
 * Releases before 2026-12-07 kept the month in {p}:usage:month:{YYYY-MM} (accountId -> charged,
 * expiring like a day): it is still read, so the month those releases were replaced in adds up.
 */
export const AGGREGATE_RETENTION_DAYS = 400;
/** The scope of the whole relay (no account id contains '*'). */
export const ALL_ACCOUNTS = '*';

export const usageKeys = (prefix: string) => ({
  day: (day: string, scope: string) => `${prefix}:usage:day:${day}:${scope}`,
  /** where releases before 2026-12-07 counted a month (read, never written) */
  legacyMonth: (month: string) => `${prefix}:usage:month:${month}`,
});

export const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
export const utcMonth = (ms: number) => new Date(ms).toISOString().slice(0, 7);

/**
 * A settlement's units as one number for the charts: images for image models ("3 images"),
 * input plus output tokens for speech ("in:120,out:900").
 */
export function unitCount(units: string): number {
  const tokens = /^in:(\d+),out:(\d+)$/.exec(units);
  if (tokens) return Number(tokens[1]) + Number(tokens[2]);
  const leading = /^(\d+)/.exec(units);
  return leading ? Number(leading[1]) : 0;
}

export const dailyUsageSchema = z
  .object({
    /** One row per day and model with any settled job, oldest day first. */
    days: z.array(
      z.object({
        day: z.string().describe('YYYY-MM-DD (UTC)'),
        model: z.string(),
        charged: z.number().int().describe('micro-units charged'),
        units: z.number().int().describe('images, or input + output tokens for speech'),
        jobs: z.number().int(),
      }),
    ),
  })
  .meta({ id: 'DailyUsage' });
export type DailyUsage = z.output<typeof dailyUsageSchema>;

/** The last `days` days (today included) of one account, or of the relay with ALL_ACCOUNTS. */
export async function readDailyUsage(redis: Redis, prefix: string, scope: string, days: number, now = Date.now()): Promise<DailyUsage> {
  const keys = usageKeys(prefix);
  const dayList = Array.from({ length: days }, (_, i) => utcDay(now - (days - 1 - i) * 86_400_000));
  const pipeline = redis.pipeline();
  for (const day of dayList) pipeline.hgetall(keys.day(day, scope));
  const replies = (await pipeline.exec()) ?? [];
  const rows: DailyUsage['days'] = [];
  dayList.forEach((day, i) => {
    const hash = (replies[i]?.[1] ?? {}) as Record<string, string>;
    const models = new Map<string, DailyUsage['days'][number]>();
    for (const [field, value] of Object.entries(hash)) {
      const colon = field.indexOf(':');
      const metric = field.slice(0, colon);
      const model = field.slice(colon + 1);
      const row = models.get(model) ?? { day, model, charged: 0, units: 0, jobs: 0 };
      if (metric === 'charged' || metric === 'units' || metric === 'jobs') row[metric] = Number(value);
      models.set(model, row);
    }
    rows.push(...[...models.values()].sort((a, b) => a.model.localeCompare(b.model)));
  });
  return { days: rows };
}

/** What each of `accountIds` was charged in the UTC month of `now` (0 when nothing). */
export async function readMonthSpend(redis: Redis, prefix: string, accountIds: string[], now = Date.now()): Promise<number[]> {
  if (accountIds.length === 0) return [];
  const month = utcMonth(now);
  const pipeline = redis.pipeline();
  pipeline.hmget(usageKeys(prefix).legacyMonth(month), ...accountIds);
  for (const id of accountIds) pipeline.hmget(billingKeys(prefix).account(id), 'month', 'monthSpent');
  const [legacy, ...own] = ((await pipeline.exec()) ?? []).map(([error, reply]) => {
    if (error) throw error;
    return reply as Array<string | null>;
  });
  return accountIds.map((_, i) => {
    const [counted, spent] = own[i]!;
    return Number(legacy![i] ?? 0) + (counted === month ? Number(spent ?? 0) : 0);
  });
}
