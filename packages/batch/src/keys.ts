import { createHmac } from 'node:crypto';
import type { JobKind } from '@relay/jobs';

/**
 * Where a batch lives. Redis (all under the prefix: one hash tag, one Cluster slot):
 *   batch:{id}            hash  the batch object's fields, counts, cursor, progress
 *   batch:{id}:done       bits  line number -> its outcome is recorded (or it was refused at creation)
 *   batch:{id}:inflight   zset  line number -> ms it was fed: in the schedule or running, no outcome yet
 *   batch:{id}:offsets    hash  line number -> its byte offset in the input (to feed it again)
 *   batch:{id}:records    list  finished lines not yet written to a part ('o'|'e' + the output line)
 *   batch:{id}:lock       str   the worker working on the batch
 *   batches:{account}     zset  the account's batches by creation (listing)
 *   batches:all           zset  every batch by creation (the admin API's listing)
 *   batches:active        zset  batches a worker has something to do for
 * The store: the batch's own copy of its input (`batch-output/{id}/input.jsonl`: deleting the
 * uploaded file cannot pull it away), finished lines in parts of PART_LINES (`.../part-{n}.jsonl`),
 * the lines refused at creation (`.../invalid.jsonl`); at the end, the output and error files as Files.
 */
export const batchKeys = (prefix: string) => ({
  batch: (id: string) => `${prefix}:batch:${id}`,
  done: (id: string) => `${prefix}:batch:${id}:done`,
  inflight: (id: string) => `${prefix}:batch:${id}:inflight`,
  offsets: (id: string) => `${prefix}:batch:${id}:offsets`,
  records: (id: string) => `${prefix}:batch:${id}:records`,
  lock: (id: string) => `${prefix}:batch:${id}:lock`,
  account: (accountId: string) => `${prefix}:batches:${accountId}`,
  all: `${prefix}:batches:all`,
  active: `${prefix}:batches:active`,
});
export type BatchKeys = ReturnType<typeof batchKeys>;

/** Finished lines per part object: what Redis holds of a batch's results at most, before a flush. */
export const PART_LINES = 500;
export const partKey = (batchId: string, part: number) => `batch-output/${batchId}/part-${part}.jsonl`;
export const inputCopyKey = (batchId: string) => `batch-output/${batchId}/input.jsonl`;
export const invalidLinesKey = (batchId: string) => `batch-output/${batchId}/invalid.jsonl`;

/**
 * A line's job id, the same every time it is fed (a feed repeated after a crash finds the job and
 * the reservation it made), and as unguessable as any job id: keyed by the batch's secret salt.
 */
export function lineJobId(kind: JobKind, salt: string, line: number): string {
  return `${kind}_${createHmac('sha256', salt).update(String(line)).digest('hex').slice(0, 32)}`;
}

/** The `id` of a line's output: OpenAI's `batch_req_` and the line job's hex. */
export const outputLineId = (jobId: string) => `batch_req_${jobId.slice(4)}`;

/** The output and error files' ids, fixed for the batch so finishing it twice writes them once. */
export const resultFileId = (salt: string, which: 'output' | 'error') =>
  `file-${createHmac('sha256', salt).update(which).digest('hex').slice(0, 24)}`;
