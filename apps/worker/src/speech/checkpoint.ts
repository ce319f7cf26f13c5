import { z } from 'zod';
import { speechJobResultSchema } from '@relay/jobs';

/**
 * What a speech job keeps in its progress (BullMQ's, in Redis) once its clip is stored: the
 * result and what it costs. A run after that (its worker died before BullMQ heard it finished)
 * charges and answers from it instead of asking the vendor, and paying it, again. `v` says
 * which shape it is; a shape that changes gets the next number and a migration beside it.
 */
const speechCheckpointSchema = z.object({
  v: z.literal(1),
  stored: z.object({
    result: speechJobResultSchema,
    charge: z.object({ amount: z.number().int().min(0), units: z.string(), channel: z.string() }),
  }),
});
export type SpeechCheckpoint = z.output<typeof speechCheckpointSchema>;

export const speechCheckpointOf = (stored: SpeechCheckpoint['stored']): SpeechCheckpoint => ({ v: 1, stored });

/** The stored clip a job checkpointed, if it did (a job that has not, or wrote a shape no version knows, has none). */
export function readSpeechCheckpoint(progress: unknown): SpeechCheckpoint['stored'] | undefined {
  const checkpoint = speechCheckpointSchema.safeParse(progress);
  return checkpoint.success ? checkpoint.data.stored : undefined;
}
