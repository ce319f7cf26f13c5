import { z } from 'zod';
import { laneSchema } from './lanes.js';
import { requestWebhookSchema } from './webhooks.js';

/**
 * The version of the meta written today: 2 names the job's model. A job's stored record of an
 * earlier version (1: its model only in its capability's payload; none: queued before records
 * were versioned, its door may be missing too) is read as today's in one place, meta-migration.ts.
 */
export const JOB_META_VERSION = 2 as const;

/** Who asked and when; carried by every job so worker logs and charges can name them. */
export const jobMetaSchema = z.strictObject({
  v: z.union([z.literal(1), z.literal(JOB_META_VERSION)]).optional(),
  requestId: z.string(),
  accountId: z.string(),
  keyId: z.string(),
  createdAt: z.number().int(),
  /** The public model it asked for (its metrics' and traces' label), whatever its capability's payload. */
  model: z.string().max(200).optional(),
  /** Where the job waits its turn, and what it weighs there (cost units of its queue). */
  lane: laneSchema.optional(),
  cost: z.number().positive().optional(),
  /** The door (dialect) it came in by: a later lookup answers in the same dialect. */
  door: z.string().max(100).optional(),
  /** The inbox of the api process that waits for it (@relay/life's notices). */
  inbox: z.string().max(200).optional(),
  /** Cancel-After: the epoch ms by which its upstream call must have begun; later, it ends cancelled, uncharged. */
  deadline: z.number().int().optional(),
  /** The W3C traceparent of the request that made it: the worker's spans continue its trace. */
  trace: z.string().max(100).optional(),
  /** The webhook its request named (`Relay-Webhook`), told of the job's end. */
  webhook: requestWebhookSchema.optional(),
  /** A batch line: its batch, its line number in the input and the caller's custom_id. */
  batch: z.strictObject({ id: z.string(), line: z.number().int().positive(), customId: z.string() }).optional(),
});
export type JobMeta = z.output<typeof jobMetaSchema>;
