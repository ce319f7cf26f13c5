import { AppError, formatMoney, getObject } from '@relay/core';
import { JOB_META_VERSION, jobOptions } from '@relay/jobs';
import { feedLineScript } from './commands.js';
import type { BatchContext } from './context.js';
import { batchEndpoint, type BatchEndpoint } from './endpoints.js';
import { inputCopyKey, lineJobId } from './keys.js';
import { readLines, type FileLine } from './line-reader.js';
import { failed } from './output-lines.js';
import { lineShape } from './limits.js';
import { parseLine, type ParsedLine } from './parse-line.js';
import type { BatchRecord } from './records.js';
import { recordLine } from './record-line.js';

/** Lines fed per step at most: a step stays short, the lock is held briefly. */
const LINES_PER_STEP = 100;

/** The error line of a line that will not run, and its end in the batch. */
async function refuse(
  ctx: BatchContext,
  b: BatchRecord,
  endpoint: BatchEndpoint,
  no: number,
  jobId: string,
  customId: string,
  error: AppError,
) {
  await recordLine(ctx, b, no, jobId, 'e', failed(jobId, customId, error, endpoint.dialect));
}

/**
 * One line into the schedule, as a synchronous request of its account would go, in the batch
 * lane: its reservation carved out of the batch's hold (@relay/life's feed). Every step finds what
 * an interrupted feed of the same line did and goes on from there; a line whose reservation began
 * or closed is on its way already (its job records its outcome).
 */
export async function feedLine(ctx: BatchContext, b: BatchRecord, endpoint: BatchEndpoint, no: number, parsed: ParsedLine) {
  if (parsed.kind === 'blank') return;
  const jobId = lineJobId(endpoint.kind, b.salt, no);
  if (parsed.kind === 'broken') {
    // the input was checked when the batch was made, so this is a line the catalog no longer serves
    return refuse(ctx, b, endpoint, no, jobId, '', new AppError('invalid_request', parsed.error.message));
  }
  if (parsed.kind === 'refused') return refuse(ctx, b, endpoint, no, jobId, parsed.customId, parsed.error);
  const { reservation, cost } = parsed.hold;
  const meta = {
    v: JOB_META_VERSION,
    requestId: `${b.id}:${no}`,
    accountId: b.accountId,
    keyId: b.keyId,
    createdAt: Date.now(),
    model: reservation.model,
  };
  const fed = await ctx.life.feed({
    queue: endpoint.queue,
    name: endpoint.jobName,
    holdId: b.id,
    reservation: { ...reservation, jobId, accountId: b.accountId, keyId: b.keyId },
    lane: 'batch',
    cost,
    prepare: () =>
      endpoint.prepare(jobId, parsed.request, meta, { store: ctx.store, maxBytes: b.settings.inputImageMaxBytes, urls: ctx.urls }),
    meta: { batch: { id: b.id, line: no, customId: parsed.customId } },
    options: jobOptions({ attempts: b.settings.attempts, backoffMs: b.settings.backoffMs, keepSeconds: b.settings.keepSeconds }),
  });
  if ('short' in fed) {
    const error = new AppError(
      'insufficient_balance',
      `insufficient balance: this line may cost up to ${formatMoney(reservation.amount)} and the batch's hold is spent`,
    );
    return refuse(ctx, b, endpoint, no, jobId, parsed.customId, error);
  }
  if ('refused' in fed) return refuse(ctx, b, endpoint, no, jobId, parsed.customId, fed.refused);
}

/**
 * Feeds the batch's next lines, as many as it has room for ahead of the workers, from where the
 * last feed stopped (a ranged read of the batch's copy of its input). A line enters the in-flight
 * set before anything else is done for it, so the batch cannot end while a line is half fed;
 * the cursor moves only after the lines before it are fed, so a feed cut short repeats them.
 */
export async function feed(ctx: BatchContext, b: BatchRecord): Promise<number> {
  if (b.fedEnd) return 0;
  const k = ctx.records.keys;
  const room = Math.min(LINES_PER_STEP, ctx.ahead - (await ctx.redis.zcard(k.inflight(b.id))));
  if (room <= 0) return 0;
  const endpoint = batchEndpoint(ctx.catalog, b.endpoint);
  const shape = lineShape(endpoint, b.settings);
  const { body } = await getObject(ctx.store, inputCopyKey(b.id), b.cursorOffset);
  let next = { line: b.cursorLine, offset: b.cursorOffset };
  let fed = 0;
  let reachedEnd = true;
  try {
    for await (const line of readLines(body, b.settings.maxLineBytes, { no: b.cursorLine, offset: b.cursorOffset })) {
      if (fed >= room) {
        reachedEnd = false;
        break;
      }
      next = { line: line.no + 1, offset: line.end };
      const parsed = parseLine(line, endpoint, shape);
      if (parsed.kind === 'blank') continue;
      const fresh = await feedLineScript(
        ctx.redis,
        { done: k.done(b.id), inflight: k.inflight(b.id), offsets: k.offsets(b.id) },
        { line: line.no, offset: line.offset },
      );
      if (!fresh) continue;
      fed += 1;
      await feedLine(ctx, b, endpoint, line.no, parsed);
    }
  } finally {
    body.destroy();
  }
  await ctx.redis.hset(k.batch(b.id), { cursor_line: next.line, cursor_offset: next.offset, fed_end: reachedEnd ? '1' : '0' });
  if (fed) ctx.schedulers[endpoint.queue].nudge();
  return fed;
}

/** One line of the batch's input, read again at its offset (a line to feed again, or to name). */
export async function lineAt(ctx: BatchContext, b: BatchRecord, no: number, offset: number): Promise<FileLine | undefined> {
  const { body } = await getObject(ctx.store, inputCopyKey(b.id), offset);
  try {
    for await (const line of readLines(body, b.settings.maxLineBytes, { no, offset })) return line;
  } finally {
    body.destroy();
  }
  return undefined;
}
