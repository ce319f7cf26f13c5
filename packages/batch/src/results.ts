import type { Redis } from 'ioredis';
import { AppError, type BlobStore } from '@relay/core';
import { objectLines } from './file-writer.js';
import { PART_LINES, partKey } from './keys.js';
import type { BatchRecord, BatchRecords } from './records.js';
import { ENDED, type BatchResults, type OutputLine } from './schema.js';

/**
 * The lines of a running batch finished so far, in the order they finished, from `after` on:
 * what the parts in the store hold, then what Redis still holds. It lets a client fetch results
 * while the batch runs (the batch CLI does); once the batch has ended its files hold everything.
 */
export async function readResults(
  redis: Redis,
  store: BlobStore,
  records: BatchRecords,
  b: BatchRecord,
  after: number,
  limit: number,
): Promise<BatchResults> {
  if (ENDED.has(b.status)) {
    throw new AppError('conflict', `${b.id} has ended (${b.status}): its output_file_id and error_file_id hold every line`, {
      retryable: false,
    });
  }
  // what is flushed and what Redis holds, read together so no line falls between the two
  const [[, flushedRaw], [, held]] = (await redis
    .multi()
    .hget(records.keys.batch(b.id), 'flushed')
    .lrange(records.keys.records(b.id), 0, -1)
    .exec()) as [[null, string | null], [null, string[]]];
  const flushed = Number(flushedRaw ?? 0);
  const data: OutputLine[] = [];
  let at = after;
  while (at < flushed && data.length < limit) {
    const part = Math.floor(at / PART_LINES);
    let index = part * PART_LINES;
    for await (const record of objectLines(store, partKey(b.id, part))) {
      if (index++ < at) continue;
      if (data.length >= limit) break;
      data.push(JSON.parse(record.slice(1)) as OutputLine);
      at += 1;
    }
    if (index === part * PART_LINES) break; // the part is gone: the batch is ending
  }
  if (at >= flushed)
    for (let i = at - flushed; i < held.length && data.length < limit; i++, at++) data.push(JSON.parse(held[i]!.slice(1)) as OutputLine);
  return { object: 'list', data, after: at, has_more: at < flushed + held.length };
}
