import { z } from 'zod';

export const accountSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    createdAt: z.number().int(),
    /** Its share of the capacity against other accounts with work waiting in the same lane (default 1). */
    weight: z.number().positive(),
    /** The most of its jobs handed to the workers at once; null: no cap of its own. */
    maxInFlight: z.number().int().positive().nullable(),
  })
  .meta({ id: 'Account' });
export type Account = z.output<typeof accountSchema>;

export const keyRecordSchema = z
  .object({
    id: z.string(),
    accountId: z.string(),
    name: z.string(),
    createdAt: z.number().int(),
    revokedAt: z.number().int().nullable(),
    /** This key's own requests-per-minute limit; null means the configured default. */
    rateLimitPerMinute: z.number().int().nullable(),
    /** When the key last authenticated a request, to the minute (each api process writes it at most once a minute). */
    lastUsedAt: z.number().int().nullable(),
  })
  .meta({ id: 'KeyRecord' });
export type KeyRecord = z.output<typeof keyRecordSchema>;
