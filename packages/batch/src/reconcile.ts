import { AppError } from '@relay/core';
import type { BatchContext } from './context.js';
import { batchEndpoint, type BatchEndpoint } from './endpoints.js';
import { feedLine, lineAt } from './feed.js';
import { lineJobId } from './keys.js';
import { lineShape } from './limits.js';
import { failed, notRun, type Ending } from './output-lines.js';
import { parseLine } from './parse-line.js';
import type { BatchRecord } from './records.js';
import { recordLine } from './record-line.js';
import { recordJobOutcome } from './outcomes.js';

/** A line in flight longer than this without news is looked at (its end may have gone unreported). */
const QUIET_MS = 10_000;

/** The custom_id of an in-flight line: from its job, else from the input at the line's offset. */
async function customIdOf(ctx: BatchContext, b: BatchRecord, no: number, data?: { meta?: { batch?: { customId?: string } } }) {
  const known = data?.meta?.batch?.customId;
  if (known !== undefined) return known;
  const offset = await ctx.redis.hget(ctx.records.keys.offsets(b.id), String(no));
  const line = offset === null ? undefined : await lineAt(ctx, b, no, Number(offset));
  try {
    const customId = (JSON.parse(line?.bytes?.toString('utf8') ?? '{}') as { custom_id?: unknown }).custom_id;
    return typeof customId === 'string' ? customId : '';
  } catch {
    return '';
  }
}

/** Feeds an in-flight line again from the input (its job never got in, or was lost before it ran). */
async function refeed(ctx: BatchContext, b: BatchRecord, endpoint: BatchEndpoint, no: number) {
  const offset = await ctx.redis.hget(ctx.records.keys.offsets(b.id), String(no));
  const line = offset === null ? undefined : await lineAt(ctx, b, no, Number(offset));
  if (line) await feedLine(ctx, b, endpoint, no, parseLine(line, endpoint, lineShape(endpoint, b.settings)));
}

/**
 * Lines in flight for a while are checked against their jobs: an end the worker did not get to
 * report (killed between finishing a job and recording it) is recorded here; a job that never
 * got into the queue, or was lost before it began, is fed again; one lost after its call began
 * cannot be told apart from a paid result that vanished, so its money is given back and the line
 * fails with a 503 the caller may run again.
 */
export async function reconcile(ctx: BatchContext, b: BatchRecord, quietMs = QUIET_MS) {
  const k = ctx.records.keys;
  const [seconds, micros] = await ctx.redis.time();
  const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  const lines = await ctx.redis.zrangebyscore(k.inflight(b.id), '-inf', now - quietMs, 'LIMIT', 0, 200);
  if (!lines.length) return;
  const endpoint = batchEndpoint(ctx.catalog, b.endpoint);
  const queue = ctx.queues[endpoint.queue];
  for (const member of lines) {
    const no = Number(member);
    const jobId = lineJobId(endpoint.kind, b.salt, no);
    // the state first: a job read before it finished would carry no result
    const state = await queue.getJobState(jobId);
    if (state === 'completed' || state === 'failed') {
      const job = await queue.getJob(jobId);
      if (job)
        await recordJobOutcome(ctx, job, state === 'completed' ? { result: job.returnvalue } : { failedReason: job.failedReason }, b);
      continue;
    }
    if (state !== 'unknown') continue; // on its way
    const reservation = await ctx.billing.reservationState(jobId);
    if (reservation === undefined || reservation === 'reserved') {
      await refeed(ctx, b, endpoint, no);
      continue;
    }
    await ctx.billing.release(jobId);
    const error = new AppError(
      'unavailable',
      `the job of this line (${jobId}) was lost ${reservation === 'started' ? 'while it ran' : 'after it ended'}; nothing was charged for it, run the line again`,
      { retryAfterMs: 1_000 },
    );
    if (reservation === 'settled')
      ctx.log.error({ batchId: b.id, jobId }, 'a settled batch line lost its job before its outcome was recorded');
    await recordLine(ctx, b, no, jobId, 'e', failed(jobId, await customIdOf(ctx, b, no), error, endpoint.dialect));
  }
}

/**
 * A batch that stops (cancelled, or past its window) takes back every line of it that has not
 * begun: reservation cancelled, out of the schedule and the queue, recorded as not run. Lines
 * whose call began finish and are kept. Returns how many lines are still in flight.
 */
export async function windDown(ctx: BatchContext, b: BatchRecord, ending: Ending): Promise<number> {
  const k = ctx.records.keys;
  const endpoint = batchEndpoint(ctx.catalog, b.endpoint);
  const queue = ctx.queues[endpoint.queue];
  const lines = await ctx.redis.zrange(k.inflight(b.id), 0, -1);
  let left = 0;
  for (const member of lines) {
    const no = Number(member);
    const jobId = lineJobId(endpoint.kind, b.salt, no);
    const reservation = await ctx.billing.reservationState(jobId);
    // read before it is dropped: its data names the line's custom_id
    const job = await queue.getJob(jobId);
    let takenBack = reservation === 'reserved' && (await ctx.life.cancel(endpoint.queue, job ?? jobId));
    if (reservation === undefined) {
      // never carved: nothing to give back, only its place and its job (if it got that far)
      await ctx.life.drop(endpoint.queue, job ?? jobId);
      takenBack = true;
    }
    if (!takenBack) {
      left += 1;
      continue;
    }
    await recordLine(ctx, b, no, jobId, 'e', notRun(jobId, await customIdOf(ctx, b, no, job?.data), ending));
  }
  return left;
}
