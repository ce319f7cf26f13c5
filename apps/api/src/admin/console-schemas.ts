import { z } from 'zod';
import { QUEUE_NAMES, type QueueName } from '@relay/core';
import { balanceSchema } from '@relay/billing';
import { accountSchema } from '../auth/records.js';

/** What the admin API answers for the console's pages (listing, charts, queues, catalog). */
export const accountListQuery = z.strictObject({
  q: z.string().trim().max(200).optional().describe('Words that start words of the name, or the start of the id (every word must match)'),
  limit: z.coerce.number().int().min(1).max(100).default(25),
  cursor: z
    .string()
    .regex(/^\d{1,9}$/, 'cursor must be a nextCursor value')
    .optional(),
});

export const accountSummarySchema = accountSchema.extend(balanceSchema.shape).extend({
  spentThisMonth: z.number().int().describe('micro-units charged since the start of the UTC month'),
});
export const accountListSchema = z
  .object({ accounts: z.array(accountSummarySchema), nextCursor: z.string().nullable() })
  .meta({ id: 'AccountList' });
export type AccountSummary = z.output<typeof accountSummarySchema>;

export const dailyQuery = z.strictObject({
  days: z.coerce.number().int().min(1).max(90).default(30).describe('How many days back, today (UTC) included'),
});

const jobStates = ['waiting', 'active', 'delayed', 'prioritized', 'completed', 'failed'] as const;
export const queueStatsSchema = z
  .object({
    queues: z.array(
      z.object({
        name: z.string(),
        queue: z.string().describe('the BullMQ queue name (bull-board lists it under this name)'),
        counts: z.object(
          Object.fromEntries(jobStates.map((s) => [s, z.number().int()])) as Record<(typeof jobStates)[number], z.ZodNumber>,
        ),
        recentFailures: z.array(
          z.object({ id: z.string(), failedReason: z.string(), finishedOn: z.number().int().nullable(), attemptsMade: z.number().int() }),
        ),
      }),
    ),
    dashboard: z.string().describe('where bull-board lives'),
  })
  .meta({ id: 'QueueStats' });
export type QueueStats = z.output<typeof queueStatsSchema>;
export { jobStates };

export const adminCatalogSchema = z
  .object({
    models: z
      .array(z.object({ id: z.string(), capability: z.enum(QUEUE_NAMES as [QueueName, ...QueueName[]]) }))
      .describe("every capability's models, in the capability table's order (the ledger's filter)"),
    imageModels: z.array(
      z.object({
        id: z.string(),
        price: z.number().int(),
        inputImages: z.object({ min: z.number().int(), max: z.number().int() }),
        sequential: z.boolean(),
      }),
    ),
    speechModels: z.array(
      z.object({
        id: z.string(),
        voices: z.array(z.string()),
        price: z.object({ inputPerMillion: z.number().int(), outputPerMillion: z.number().int() }),
      }),
    ),
  })
  .meta({ id: 'AdminCatalog' });
export type AdminCatalog = z.output<typeof adminCatalogSchema>;

export const demoKeySchema = z
  .object({
    key: z
      .string()
      .nullable()
      .describe("the demo account's key npm start made (console.demoKeyFile), for the playground; null on any other relay"),
  })
  .meta({ id: 'DemoKey' });
export type DemoKey = z.output<typeof demoKeySchema>;

export const consoleConfigSchema = z
  .object({
    adminEnabled: z.boolean().describe('whether ADMIN_TOKEN is set (the console can sign in)'),
    version: z.string(),
  })
  .meta({ id: 'ConsoleConfig' });
export type ConsoleConfig = z.output<typeof consoleConfigSchema>;
