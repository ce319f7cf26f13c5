import { deleteObject, getObject } from '@relay/core';
import { endScript } from './commands.js';
import type { BatchContext } from './context.js';
import { batchEndpoint } from './endpoints.js';
import { jsonlWriter, objectLines } from './file-writer.js';
import { fileKey } from './files/store.js';
import { inputCopyKey, invalidLinesKey, lineJobId, partKey, resultFileId } from './keys.js';
import { isBlank, readLines } from './line-reader.js';
import { notRun, type Ending } from './output-lines.js';
import type { BatchRecord } from './records.js';

const bitIsSet = (bits: Buffer | null, n: number) => bits !== null && n >> 3 < bits.length && (bits[n >> 3]! & (0x80 >> (n & 7))) !== 0;

/**
 * The lines a stopped batch never fed, as error lines saying why (OpenAI's batch_cancelled /
 * batch_expired): the input is read on from where feeding stopped.
 */
async function* unfedLines(ctx: BatchContext, b: BatchRecord, ending: Ending) {
  if (b.fedEnd) return;
  const endpoint = batchEndpoint(ctx.catalog, b.endpoint);
  const done = await ctx.redis.getBuffer(ctx.records.keys.done(b.id));
  const { body } = await getObject(ctx.store, inputCopyKey(b.id), b.cursorOffset);
  try {
    for await (const line of readLines(body, b.settings.maxLineBytes, { no: b.cursorLine, offset: b.cursorOffset })) {
      if (!line.bytes || isBlank(line.bytes) || bitIsSet(done, line.no)) continue;
      const customId = String((JSON.parse(line.bytes.toString('utf8')) as { custom_id: unknown }).custom_id);
      yield JSON.stringify(notRun(lineJobId(endpoint.kind, b.salt, line.no), customId, ending));
    }
  } finally {
    body.destroy();
  }
}

/**
 * Ends a batch whose lines are all recorded: its output and error files are written from the
 * parts, the records Redis still holds and (stopped batches) the lines never fed; they become
 * Files of the account; what the hold still keeps goes back; the account's endpoints hear of it;
 * the batch takes its final status. Every step can run again after a crash with the same result
 * (the files' ids are fixed, a release and an announcement happen once), and the status is the
 * last thing written. Then the batch's working data is dropped.
 */
export async function finish(ctx: BatchContext, b: BatchRecord, ending: 'completed' | Ending) {
  const k = ctx.records.keys;
  const now = () => Math.floor(Date.now() / 1000);
  if (ending === 'completed' && b.status === 'in_progress')
    await ctx.redis.hset(k.batch(b.id), { status: 'finalizing', finalizing_at: now() });
  const ids = { output: resultFileId(b.salt, 'output'), error: resultFileId(b.salt, 'error') };
  const out = jsonlWriter(ctx.store, fileKey(ids.output));
  const err = jsonlWriter(ctx.store, fileKey(ids.error));
  const route = (record: string) => (record[0] === 'o' ? out.write(record.slice(1)) : err.write(record.slice(1)));
  for await (const record of objectLines(ctx.store, invalidLinesKey(b.id))) await route(record);
  for (let part = 0; part < b.parts; part++) for await (const record of objectLines(ctx.store, partKey(b.id, part))) await route(record);
  for (const record of await ctx.redis.lrange(k.records(b.id), 0, -1)) await route(record);
  if (ending !== 'completed') for await (const line of unfedLines(ctx, b, ending)) await err.write(line);
  const written = { output: await out.close(), error: await err.close() };

  const created = now();
  for (const which of ['output', 'error'] as const) {
    if (!written[which].lines) continue;
    await ctx.files.save({
      id: ids[which],
      object: 'file',
      bytes: written[which].bytes,
      created_at: created,
      filename: `${b.id}_${which}.jsonl`,
      purpose: 'batch_output',
      status: 'processed',
      expires_at: null,
      status_details: null,
      accountId: b.accountId,
      lines: written[which].lines,
    });
  }
  await ctx.billing.release(b.id);
  const status = ending === 'completed' ? 'completed' : ending;
  const final = {
    ...b,
    status,
    outputFileId: written.output.lines ? ids.output : null,
    errorFileId: written.error.lines ? ids.error : null,
  } as const;
  await ctx.announce(final, `batch.${status}`);
  await endScript(
    ctx.redis,
    { batch: k.batch(b.id), active: k.active },
    { status, now: now(), outputFileId: final.outputFileId ?? '', errorFileId: final.errorFileId ?? '' },
  );
  ctx.log.info({ batchId: b.id, status, output: written.output.lines, errors: written.error.lines }, 'batch ended');

  const objects = [inputCopyKey(b.id), invalidLinesKey(b.id), ...Array.from({ length: b.parts }, (_, part) => partKey(b.id, part))];
  await Promise.all(
    objects.map((key) =>
      deleteObject(ctx.store, key).catch((err: Error) =>
        ctx.log.warn({ batchId: b.id, key, err: err.message }, "an ended batch's working copy could not be removed from the store"),
      ),
    ),
  );
  await ctx.redis.del(k.done(b.id), k.inflight(b.id), k.offsets(b.id), k.records(b.id));
}
