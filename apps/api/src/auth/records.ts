import { z } from 'zod';

export const accountSchema = z.object({ id: z.string(), name: z.string(), createdAt: z.number().int() });
export type Account = z.output<typeof accountSchema>;

export const keyRecordSchema = z.object({
  id: z.string(),
  accountId: z.string(),
  name: z.string(),
  createdAt: z.number().int(),
  revokedAt: z.number().int().nullable(),
  /** This key's own requests-per-minute limit; null means the configured default. */
  rateLimitPerMinute: z.number().int().nullable(),
});
export type KeyRecord = z.output<typeof keyRecordSchema>;
