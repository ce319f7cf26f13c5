import { PassThrough } from 'node:stream';
import { getObject, putObject, type BlobStore } from '@relay/core';
import type { BatchEndpoint } from './endpoints.js';
import { invalidLinesKey, lineJobId } from './keys.js';
import { readLines } from './line-reader.js';
import { failed, recordOf } from './output-lines.js';
import { lineShape } from './limits.js';
import { parseLine } from './parse-line.js';
import type { BatchSettings } from './records.js';
import type { BatchError } from './schema.js';

export interface InputSummary {
  /** Requests in the file (blank lines are none). */
  total: number;
  /** Lines refused by a rule of the endpoint: their error lines are written out already. */
  refused: number[];
  /** The most the other lines can cost together, in micro-units. */
  amount: number;
  /** Lines that break the file's format: the batch fails (the first 100 are listed). */
  broken: BatchError[];
}

const LISTED_ERRORS = 100;

/**
 * Reads the input once, line by line from the store (never whole in memory): format errors fail
 * the batch; a line that breaks a rule of its endpoint gets its error line now, in the store,
 * and will never run; the rest add up to what the batch holds.
 */
export async function validateInput(
  store: BlobStore,
  inputKey: string,
  endpoint: BatchEndpoint,
  batch: { id: string; salt: string },
  settings: Pick<BatchSettings, 'maxLineBytes' | 'inputImageMaxBytes'>,
): Promise<InputSummary> {
  const summary: InputSummary = { total: 0, refused: [], amount: 0, broken: [] };
  const shape = lineShape(endpoint, settings);
  const seen = new Set<string>();
  let out: { stream: PassThrough; done: Promise<void> } | undefined;
  const write = async (text: string) => {
    if (!out) {
      const stream = new PassThrough();
      out = { stream, done: putObject(store, invalidLinesKey(batch.id), stream, { contentType: 'application/jsonl' }) };
      out.done.catch(() => undefined); // awaited below; a failure also ends the wait for drain
    }
    if (!out.stream.write(text)) await Promise.race([new Promise((resolve) => out!.stream.once('drain', resolve)), out.done]);
  };
  const { body } = await getObject(store, inputKey);
  try {
    for await (const line of readLines(body, settings.maxLineBytes)) {
      const parsed = parseLine(line, endpoint, shape);
      if (parsed.kind === 'blank') continue;
      summary.total += 1;
      if (parsed.kind === 'broken') {
        if (summary.broken.length < LISTED_ERRORS) summary.broken.push(parsed.error);
        continue;
      }
      if (seen.has(parsed.customId)) {
        if (summary.broken.length < LISTED_ERRORS) {
          summary.broken.push({
            code: 'duplicate_custom_id',
            message: `line ${line.no}: custom_id "${parsed.customId.slice(0, 80)}" is used by an earlier line; each line needs its own`,
            param: 'custom_id',
            line: line.no,
          });
        }
        continue;
      }
      seen.add(parsed.customId);
      if (summary.broken.length) continue; // the batch fails: no need to judge the rest further
      if (parsed.kind === 'refused') {
        summary.refused.push(line.no);
        const jobId = lineJobId(endpoint.kind, batch.salt, line.no);
        await write(`${recordOf('e', failed(jobId, parsed.customId, parsed.error, endpoint.dialect))}\n`);
        continue;
      }
      summary.amount += parsed.hold.reservation.amount;
    }
  } finally {
    body.destroy();
    out?.stream.end();
  }
  await out?.done;
  return summary;
}
