import { billingKeys } from '@relay/billing';
import type { Delivered } from '@relay/jobs';
import { recordScript } from './commands.js';
import type { BatchContext } from './context.js';
import type { OutputLine } from './schema.js';
import type { RecordKind } from './output-lines.js';
import type { BatchRecord } from './records.js';

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
  delivered: Delivered = {},
): Promise<boolean> {
  const k = ctx.records.keys;
  const id = batch.id;
  return recordScript(
    ctx.redis,
    {
      batch: k.batch(id),
      done: k.done(id),
      inflight: k.inflight(id),
      offsets: k.offsets(id),
      records: k.records(id),
      reservation: billingKeys(ctx.prefix).reservation(jobId),
    },
    { line, kind, output: JSON.stringify(output), images: delivered.images ?? 0, audioMs: delivered.audioMs ?? 0 },
  );
}
