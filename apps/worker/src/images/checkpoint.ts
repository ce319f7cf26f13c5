import { z } from 'zod';
import { imageSetSchema } from '../upstreams/images.js';

const refusalSchema = z.object({
  code: z.string().optional(),
  message: z.string(),
  param: z.string().optional(),
  moderation: z.boolean(),
});

/** What one generation came to: an answer holding at least one image, or a final refusal. */
const generationSchema = z.union([
  z.object({ answer: imageSetSchema, channel: z.string().optional() }),
  z.object({ refused: refusalSchema }),
]);
export type Generation = z.output<typeof generationSchema>;

/**
 * What an image job keeps in its progress (BullMQ's, in Redis) as its paid answers arrive: each
 * generation's outcome by its number. `v` says which shape it is; a shape that changes gets the
 * next number and a line below that brings the ones before it up to date.
 */
const checkpointSchema = z.object({ v: z.literal(1), generations: z.record(z.string(), generationSchema) });
export type Checkpoint = z.output<typeof checkpointSchema>;

export const checkpointOf = (generations: Map<number, Generation>): Checkpoint => ({ v: 1, generations: Object.fromEntries(generations) });

/**
 * The shapes written before the checkpoint had a version, still in Redis for jobs queued then:
 * generations without `v`, and before generations were counted a single answer (`generated`).
 */
const unversionedSchema = z.union([
  z
    .object({ v: z.never().optional(), generations: z.record(z.string(), generationSchema) })
    .transform(({ generations }): Checkpoint => ({ v: 1, generations })),
  z
    .object({ v: z.never().optional(), generated: imageSetSchema })
    .transform(({ generated }): Checkpoint => ({ v: 1, generations: { 0: { answer: generated } } })),
]);

/** A job's checkpoint in today's shape, whichever shape it was written in; none when it has none (or one no version knows). */
export function migrateCheckpoint(progress: unknown): Checkpoint | undefined {
  const current = checkpointSchema.safeParse(progress);
  if (current.success) return current.data;
  const older = unversionedSchema.safeParse(progress);
  return older.success ? older.data : undefined;
}

/** The generations a job has checkpointed, by number. */
export function readCheckpoint(progress: unknown): Map<number, Generation> {
  const checkpoint = migrateCheckpoint(progress);
  return new Map(Object.entries(checkpoint?.generations ?? {}).map(([g, outcome]) => [Number(g), outcome]));
}
