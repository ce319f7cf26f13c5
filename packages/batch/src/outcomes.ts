import { decodeFailure } from '@relay/core';
import { deliveredBy, type MetaJob } from '@relay/jobs';
import type { BatchContext } from './context.js';
import { batchEndpoint } from './endpoints.js';
import { failed, notRun, succeeded } from './output-lines.js';
import type { BatchRecord } from './records.js';
import { recordLine } from './record-line.js';

/** The batch line a job runs, if it runs one. */
export const lineOf = (job: MetaJob) => job.data.meta.batch;

/** How a line's job ended: its result, or the failedReason it failed for good with. */
export type JobEnd = { result: unknown } | { failedReason: string };

/**
 * A line's job has ended: its output line (the synchronous call's answer, links instead of
 * blobs) or its error line (the status and body the call would answer with) is recorded. A job
 * cancelled because its batch stopped reads as the batch's ending, as the lines never fed do.
 * True when this call recorded it (false: someone did already, or it is no batch line).
 */
export async function recordJobOutcome(ctx: BatchContext, job: MetaJob, end: JobEnd, batch?: BatchRecord): Promise<boolean> {
  const line = lineOf(job);
  if (!line || !job.id) return false;
  const b = batch ?? (await ctx.records.read(line.id));
  if (!b) return false;
  const endpoint = batchEndpoint(ctx.catalog, b.endpoint);
  let recorded: boolean;
  if ('result' in end) {
    const body = await endpoint.present(job.data, end.result, b.linkBase);
    recorded = await recordLine(
      ctx,
      b,
      line.line,
      job.id,
      'o',
      succeeded(job.id, line.customId, body),
      deliveredBy(endpoint.queue, end.result),
    );
  } else {
    const error = decodeFailure(end.failedReason);
    const stopping =
      b.status === 'cancelling' ? 'cancelled' : b.expiresAt !== null && Date.now() / 1000 >= b.expiresAt ? 'expired' : undefined;
    const output =
      error.code === 'cancelled' && stopping
        ? notRun(job.id, line.customId, stopping)
        : failed(job.id, line.customId, error, endpoint.dialect);
    recorded = await recordLine(ctx, b, line.line, job.id, 'e', output);
  }
  // Its outcome is in the batch now, and nobody reads a line's job: kept for `tuning.api.jobKeepSeconds`
  // like a caller's job, a 50,000-line batch would leave 50,000 finished jobs in Redis for a day.
  await job
    .remove()
    .catch((err: Error) => ctx.log.warn({ jobId: job.id, err: err.message }, "a batch line's finished job stays until its keep time ends"));
  return recorded;
}
