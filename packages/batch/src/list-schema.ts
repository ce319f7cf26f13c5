import { z } from 'zod';

/** OpenAI's cursor-paged list (`after` = the last id seen), as its Files and Batches APIs answer it. */
export function cursorListSchema<T extends z.ZodType>(item: T) {
  return z.object({
    object: z.literal('list'),
    data: z.array(item),
    first_id: z.string().nullable(),
    last_id: z.string().nullable(),
    has_more: z.boolean(),
  });
}
