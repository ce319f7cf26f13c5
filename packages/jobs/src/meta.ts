import { z } from 'zod';

/** Who asked and when; carried by every job so worker logs and charges can name them. */
export const jobMetaSchema = z.strictObject({
  requestId: z.string(),
  accountId: z.string(),
  keyId: z.string(),
  createdAt: z.number().int(),
});
export type JobMeta = z.output<typeof jobMetaSchema>;
