import type { RelayJob } from '@relay/jobs';
import { AppError } from '@relay/core';
import { ChannelsCooling } from '@relay/channels';
import { isCancelled } from '@relay/life';
import { isFailedSlot, type ImageSet } from '../upstreams/images.js';
import { checkpointOf, readCheckpoint, type Generation } from './checkpoint.js';
import { UpstreamError } from '../upstreams/upstream-error.js';

/** A generation that kept failing until the job's last attempt, while others delivered. */
export type GaveUp = { gaveUp: { code: string; message: string } };
export type Outcome = Generation | GaveUp;

/** An upstream answer and the channel that gave it. */
export interface Answered {
  answer: ImageSet;
  channel: string;
}

/** One upstream answer as a generation: the adapter has turned an answer without images into an error already. */
function outcomeOf({ answer, channel }: Answered): Generation {
  if (answer.data.every(isFailedSlot)) throw new UpstreamError('transient', 'no image delivered');
  return { answer, channel };
}

function refusalOf(error: unknown): Generation | undefined {
  if (!(error instanceof UpstreamError) || error.kind !== 'refused') return undefined;
  const { code, param, moderation = false } = error.details;
  return { refused: { code, message: error.message, param, moderation } };
}

/** The failure to act on when several generations failed: final ones first, then pauses. */
function rank(error: unknown): number {
  if (error instanceof ChannelsCooling) return 1;
  if (error instanceof UpstreamError) return error.kind === 'transient' ? 2 : error.kind === 'rate-limited' ? 1 : 0;
  return error instanceof AppError && !error.retryable ? 0 : 2;
}

/**
 * Runs the generations of a job not yet answered, at once, each through `generate` (one
 * upstream call under the call lease). Refusals are final and recorded like answers. Any
 * other failure is thrown once every call has settled and the answers are checkpointed, so
 * the retry makes only the missing calls; on the job's last attempt, when some generation
 * delivered, those still failing are given up instead and the rest is delivered.
 */
export async function runGenerations(
  job: RelayJob<'images'>,
  count: number,
  generate: () => Promise<Answered>,
  /** Keeps the snapshot in the job; `last`: every generation has its outcome (the job's calls are over). */
  checkpoint: (snapshot: object, last: boolean) => Promise<void>,
): Promise<Outcome[]> {
  // generations are paid for: a retry (a failed sibling, the copy step) re-runs only what is missing
  const done = readCheckpoint(job.progress);
  let writes: Promise<unknown> = Promise.resolve();
  const errors: unknown[] = [];
  const missing = Array.from({ length: count }, (_, g) => g).filter((g) => !done.has(g));
  await Promise.all(
    missing.map(async (g) => {
      try {
        done.set(g, outcomeOf(await generate()));
      } catch (error) {
        const refused = refusalOf(error);
        if (!refused) return void errors.push(error);
        done.set(g, refused);
      }
      const snapshot = checkpointOf(done);
      const last = done.size === count;
      writes = writes.then(() => checkpoint(snapshot, last));
    }),
  );
  await writes;
  const error = errors.sort((a, b) => rank(a) - rank(b))[0];
  if (error !== undefined) {
    const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    const delivered = [...done.values()].some((outcome) => 'answer' in outcome);
    // a job its owner stopped keeps what it delivered: the rest is given up now, as on a last attempt
    const over = isCancelled(error) || (lastAttempt && rank(error) === 2);
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- what a generation threw, passed on as it was
    if (!(over && delivered)) throw error;
  }
  const gaveUp: GaveUp = {
    gaveUp: isCancelled(error)
      ? { code: 'cancelled', message: (error as AppError).message }
      : { code: 'upstream_failed', message: `upstream failed after ${job.attemptsMade + 1} attempts: ${(error as Error)?.message}` },
  };
  return Array.from({ length: count }, (_, g) => done.get(g) ?? gaveUp);
}
