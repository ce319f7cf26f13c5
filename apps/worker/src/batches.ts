import type { MetaJob } from '@relay/jobs';
import {
  createBatchRecords,
  createFileRecords,
  lineOf,
  recordJobOutcome,
  startBatchRunner,
  type BatchContext,
  type JobEnd,
} from '@relay/batch';

/**
 * Batches on the workers' side: the runner that feeds, tends and finishes them, and the news of
 * each line's job as it ends here (recorded at once, and its batch moved on).
 */
export function startBatches(deps: Omit<BatchContext, 'records' | 'files'>) {
  const ctx: BatchContext = {
    ...deps,
    records: createBatchRecords(deps.redis, deps.prefix),
    files: createFileRecords(deps.redis, deps.prefix),
  };
  const runner = startBatchRunner(ctx);
  return {
    /** A job ended for good here; if it ran a batch line, the line's outcome is recorded. */
    ended(job: MetaJob, end: JobEnd) {
      const line = lineOf(job);
      if (!line) return;
      recordJobOutcome(ctx, job, end).then(
        (recorded) => recorded && runner.poke(line.id),
        (error: Error) =>
          ctx.log.warn({ jobId: job.id, batchId: line.id, err: error.message }, 'could not record a batch line; its batch will'),
      );
    },
    stop: runner.stop,
  };
}
