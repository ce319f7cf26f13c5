import { z } from 'zod';
import { balanceSchema } from '@relay/billing';
import { accountSchema, keyRecordSchema } from '../auth/records.js';

const name = z.string().trim().min(1, 'name must not be empty').max(200);

export const accountBody = z.strictObject({ name });

export const keyBody = z.strictObject({
  name,
  rateLimitPerMinute: z.number().int().min(0, 'rateLimitPerMinute must be >= 0 (0 = unlimited)').optional(),
});

export const creditBody = z.strictObject({
  amount: z
    .number()
    .int('amount is in integer micro-units')
    .refine((n) => n !== 0, 'amount must not be 0')
    .describe('micro-units; negative to correct a mistake, never below a zero balance'),
  note: z.string().max(500).optional(),
});

const time = z.union([z.coerce.number().int(), z.iso.datetime().transform((s) => Date.parse(s))]);
export const usageQuery = z.strictObject({
  from: time.optional(),
  to: time.optional(),
  model: z.string().optional(),
  /** The end user a request named (OpenAI's `user`). */
  user: z.string().max(256).optional(),
  limit: z.coerce.number().int().min(1).max(1_000).default(100),
  cursor: z.string().regex(/^\d+-\d+$/, 'cursor must be a nextCursor value').optional(),
});

export const accountDetailsSchema = accountSchema.extend(balanceSchema.shape).extend({ keys: z.array(keyRecordSchema) });
export const newKeySchema = keyRecordSchema.extend({ key: z.string().describe('The secret, shown this once') });
export const balanceAnswerSchema = balanceSchema.extend({ id: z.string() });
export const keyListSchema = z.object({ keys: z.array(keyRecordSchema) });
