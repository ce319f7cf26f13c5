import { z } from 'zod';
import { cursorListSchema } from './list-schema.js';

/** Batch ids are made here (`batch_` + 32 hex); anything else never becomes a Redis key. */
export const BATCH_ID = /^batch_[0-9a-f]{32}$/;

export const BATCH_STATUSES = [
  'validating',
  'failed',
  'in_progress',
  'finalizing',
  'completed',
  'expired',
  'cancelling',
  'cancelled',
] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];
/** Statuses a batch never leaves. */
export const ENDED: ReadonlySet<BatchStatus> = new Set(['failed', 'completed', 'expired', 'cancelled']);

/** OpenAI's metadata: at most 16 pairs, keys up to 64 characters, values up to 512. */
const metadataSchema = z
  .record(z.string().max(64, 'metadata keys are at most 64 characters'), z.string().max(512, 'metadata values are at most 512 characters'))
  .refine((m) => Object.keys(m).length <= 16, 'metadata holds at most 16 pairs');

/** POST /v1/batches, as OpenAI's SDKs send it. */
export const batchCreateBody = z
  .strictObject({
    input_file_id: z.string({ error: 'input_file_id is required' }).max(64),
    endpoint: z.string({ error: 'endpoint is required' }).max(300),
    completion_window: z.literal('24h', { error: 'completion_window must be "24h"' }),
    metadata: metadataSchema.nullable().optional(),
    output_expires_after: z
      .strictObject({
        anchor: z.literal('created_at'),
        seconds: z
          .number()
          .int()
          .min(3600)
          .max(30 * 86_400),
      })
      .optional()
      .describe('Accepted for compatibility; output files are kept until deleted'),
  })
  .meta({ id: 'BatchCreate' });
export type BatchCreateBody = z.output<typeof batchCreateBody>;

const batchErrorSchema = z.object({
  code: z.string(),
  message: z.string(),
  param: z.string().nullable(),
  line: z.number().int().nullable(),
});
export type BatchError = z.output<typeof batchErrorSchema>;

const stamp = z.number().int().nullable();

/** The Batch object, as OpenAI defines it, plus the relay's progress figures. */
export const batchObjectSchema = z
  .object({
    id: z.string(),
    object: z.literal('batch'),
    endpoint: z.string(),
    errors: z.object({ object: z.literal('list'), data: z.array(batchErrorSchema) }).nullable(),
    input_file_id: z.string(),
    completion_window: z.string(),
    status: z.enum(BATCH_STATUSES),
    output_file_id: z.string().nullable(),
    error_file_id: z.string().nullable(),
    created_at: z.number().int(),
    in_progress_at: stamp,
    expires_at: stamp,
    finalizing_at: stamp,
    completed_at: stamp,
    failed_at: stamp,
    expired_at: stamp,
    cancelling_at: stamp,
    cancelled_at: stamp,
    request_counts: z.object({ total: z.number().int(), completed: z.number().int(), failed: z.number().int() }),
    metadata: z.record(z.string(), z.string()).nullable(),
    progress: z
      .object({
        images: z.number().int().describe('Images delivered and stored so far'),
        audio_seconds: z.number().describe('Seconds of audio delivered and stored so far'),
        charged: z.number().int().describe('Micro-units charged so far'),
        held: z.number().int().describe('Micro-units still held for the lines not yet run'),
        estimated_completion_at: stamp.describe('Unix seconds, from the pace of the lines done so far'),
      })
      .describe("The relay's own figures (not in OpenAI's object)"),
  })
  .meta({ id: 'Batch' });
export type BatchObject = z.output<typeof batchObjectSchema>;

export const batchListSchema = cursorListSchema(batchObjectSchema).meta({ id: 'BatchList' });
export type BatchList = z.output<typeof batchListSchema>;

/** GET /admin/batches: every account's batches, newest first. */
export const adminBatchListQuery = z.strictObject({
  account: z.string().max(64).optional().describe("Only this account's batches"),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z
    .string()
    .regex(/^\d{1,9}$/)
    .optional(),
});
/** A batch as the operator sees it: whose it is, too. */
export const adminBatchSchema = batchObjectSchema.extend({ account_id: z.string() }).meta({ id: 'AdminBatch' });
export const adminBatchListSchema = z
  .object({
    batches: z.array(adminBatchSchema),
    nextCursor: z.string().nullable(),
  })
  .meta({ id: 'AdminBatchList' });
export type AdminBatchList = z.output<typeof adminBatchListSchema>;

export const batchListQuery = z.strictObject({
  after: z.string().max(64).optional().describe('A batch id: the page starts after it'),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

/** A line of an input file, as OpenAI's batch format has it. */
export const inputLineSchema = z.strictObject({
  custom_id: z
    .string({ error: 'custom_id is required and must be a string' })
    .min(1, 'custom_id must not be empty')
    .max(256, 'custom_id is at most 256 characters'),
  method: z.literal('POST', { error: 'method must be "POST"' }),
  url: z.string({ error: 'url is required and must be a string' }),
  body: z.record(z.string(), z.unknown(), { error: 'body must be a JSON object' }),
});
export type InputLine = z.output<typeof inputLineSchema>;

/** A line of an output or error file. */
export const outputLineSchema = z.object({
  id: z.string(),
  custom_id: z.string(),
  response: z.object({ status_code: z.number().int(), request_id: z.string(), body: z.unknown() }).nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
});
export type OutputLine = z.output<typeof outputLineSchema>;

/** GET /v1/batches/{id}/results: the lines finished so far, in the order they finished. */
export const batchResultsSchema = z
  .object({
    object: z.literal('list'),
    data: z.array(outputLineSchema),
    /** Pass as `after` for the next page. */
    after: z.number().int(),
    has_more: z.boolean(),
  })
  .meta({ id: 'BatchResults' });
export type BatchResults = z.output<typeof batchResultsSchema>;

export const batchResultsQuery = z.strictObject({
  after: z.coerce.number().int().min(0).default(0).describe('How many finished lines were read already'),
  limit: z.coerce.number().int().min(1).max(1000).default(500),
});
