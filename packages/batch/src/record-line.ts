import { evalScript } from '@relay/core';
import { billingKeys } from '@relay/billing';
import type { BatchContext } from './context.js';
import type { OutputLine } from './schema.js';
import type { RecordKind } from './output-lines.js';
import type { BatchRecord } from './records.js';
import { RECORD } from './scripts.js';

/**
 * A line's outcome, kept once whoever reports it (the worker that ran it, a reconciliation, the
 * end of a cancelled batch): false when it was recorded already.
 */
export async function recordLine(
  ctx: Pick<BatchContext, 'redis' | 'prefix' | 'records'>,
  batch: Pick<BatchRecord, 'id'>,
  line: number,
  jobId: string,
  kind: RecordKind,
  output: OutputLine,
  delivered: { images?: number; audioMs?: number } = {},
): Promise<boolean> {
  const k = ctx.records.keys;
  const id = batch.id;
  const reply = await evalScript(
    ctx.redis,
    RECORD,
    6,
    k.batch(id),
    k.done(id),
    k.inflight(id),
    k.offsets(id),
    k.records(id),
    billingKeys(ctx.prefix).reservation(jobId),
    line,
    kind,
    JSON.stringify(output),
    delivered.images ?? 0,
    delivered.audioMs ?? 0,
  );
  return Number(reply) === 1;
}
