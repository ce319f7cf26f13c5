import { z } from 'zod';
import { balanceSchema } from '@relay/billing';
import { MAX_MICRO_UNITS } from '@relay/core';
import { accountSchema, keyRecordSchema } from '../auth/records.js';

const name = z.string().trim().min(1, 'name must not be empty').max(200);

export const accountBody = z.strictObject({ name }).meta({ id: 'AccountBody' });

export const accountScheduleBody = z
  .strictObject({
    weight: z
      .number()
      .min(0.01, 'weight must be within [0.01, 1000]')
      .max(1_000, 'weight must be within [0.01, 1000]')
      .optional()
      .describe('Share of the capacity against other accounts waiting in the same lane (default 1)'),
    maxInFlight: z
      .number()
      .int()
      .min(1, 'maxInFlight must be at least 1; null lifts the cap')
      .nullable()
      .optional()
      .describe('The most of its jobs handed to the workers at once; null lifts the cap'),
  })
  .meta({ id: 'AccountScheduleBody' });

export const keyBody = z
  .strictObject({
    name,
    rateLimitPerMinute: z.number().int().min(0, 'rateLimitPerMinute must be >= 0 (0 = unlimited)').optional(),
  })
  .meta({ id: 'KeyBody' });

export const creditBody = z
  .strictObject({
    amount: z
      .number()
      .int('amount is in integer micro-units')
      .min(-MAX_MICRO_UNITS, `amount must be at least -${MAX_MICRO_UNITS} micro-units`)
      .max(MAX_MICRO_UNITS, `amount must be at most ${MAX_MICRO_UNITS} micro-units (one billion units), the most an account may hold`)
      .refine((n) => n !== 0, 'amount must not be 0')
      .describe(
        `integer micro-units (1,000,000 = one unit); negative to correct a mistake, never below a zero balance; ` +
          `a credit that would take the account's balance and reserved together past ${MAX_MICRO_UNITS} (one billion units) is refused`,
      ),
    note: z.string().max(500).optional(),
  })
  .meta({ id: 'CreditBody' });

const time = z
  .union([z.coerce.number().int(), z.iso.datetime().transform((s) => Date.parse(s))])
  .optional()
  .describe('ISO time or epoch ms');
export const usageQuery = z.strictObject({
  from: time,
  to: time,
  model: z.string().optional(),
  user: z.string().max(256).optional().describe("The end user a request named (OpenAI's user)"),
  key: z.string().max(64).optional().describe('Only the entries of jobs made with this key (its id)'),
  limit: z.coerce.number().int().min(1).max(1_000).default(100),
  cursor: z
    .string()
    .regex(/^\d+-\d+$/, 'cursor must be a nextCursor value')
    .optional(),
});

/** The ids in admin paths: any string (an unknown one is a 404). */
export const accountPath = z.object({ id: z.string().describe('The account id') });
export const keyPath = z.object({ id: z.string().describe('The key id') });

export const accountDetailsSchema = accountSchema
  .extend(balanceSchema.shape)
  .extend({ keys: z.array(keyRecordSchema) })
  .meta({ id: 'AccountDetails' });
export const newKeySchema = keyRecordSchema.extend({ key: z.string().describe('The secret, shown this once') }).meta({ id: 'NewKey' });
export const balanceAnswerSchema = balanceSchema.extend({ id: z.string() }).meta({ id: 'Balance' });
export const keyListSchema = z.object({ keys: z.array(keyRecordSchema) }).meta({ id: 'KeyList' });
