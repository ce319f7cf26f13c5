import { z } from 'zod';
import { cursorListSchema } from '../list-schema.js';

/** A file of the Files API, as OpenAI's SDKs read it. */
export const fileObjectSchema = z
  .object({
    id: z.string(),
    object: z.literal('file'),
    bytes: z.number().int(),
    created_at: z.number().int().describe('Unix seconds'),
    filename: z.string(),
    purpose: z.enum(['batch', 'batch_output']),
    status: z.literal('processed'),
    expires_at: z.number().int().nullable(),
    status_details: z.string().nullable(),
  })
  .meta({ id: 'FileObject' });
export type FileObject = z.output<typeof fileObjectSchema>;

export const fileListSchema = cursorListSchema(fileObjectSchema).meta({ id: 'FileList' });
export type FileList = z.output<typeof fileListSchema>;

export const fileDeletedSchema = z
  .object({ id: z.string(), object: z.literal('file'), deleted: z.literal(true) })
  .meta({ id: 'FileDeleted' });

export const fileListQuery = z.strictObject({
  after: z.string().max(64).optional().describe('A file id: the page starts after it'),
  limit: z.coerce.number().int().min(1).max(10_000).default(10_000),
  order: z.enum(['asc', 'desc']).default('desc'),
  purpose: z.enum(['batch', 'batch_output']).optional(),
});

/** File ids are made here (`file-` + 24 base62-safe hex); anything else never becomes a Redis key. */
export const FILE_ID = /^file-[0-9a-f]{24}$/;
