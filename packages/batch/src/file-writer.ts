import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { getObject, isMissingObject, putObject, type BlobStore } from '@relay/core';
import { readLines } from './line-reader.js';

/**
 * A JSONL object written line by line as a stream (a multipart upload: never whole in memory),
 * started by its first line; closing it says how many bytes and lines it got (none: no object).
 */
export function jsonlWriter(store: BlobStore, key: string) {
  let out: { stream: PassThrough; done: Promise<void> } | undefined;
  let bytes = 0;
  let lines = 0;
  return {
    async write(line: string) {
      if (!out) {
        const stream = new PassThrough();
        out = { stream, done: putObject(store, key, stream, { contentType: 'application/jsonl' }) };
        out.done.catch(() => undefined); // awaited by close(); a failure also ends a wait for drain
      }
      const text = `${line}\n`;
      bytes += Buffer.byteLength(text);
      lines += 1;
      if (!out.stream.write(text)) await Promise.race([once(out.stream, 'drain'), out.done]);
    },
    async close() {
      if (out) {
        out.stream.end();
        await out.done;
      }
      return { bytes, lines };
    },
  };
}

/** Each line of a JSONL object of the store, in order; nothing when the object is not there. */
export async function* objectLines(store: BlobStore, key: string, maxLineBytes = 64 * 1024 * 1024): AsyncGenerator<string> {
  let body;
  try {
    ({ body } = await getObject(store, key));
  } catch (error) {
    if (isMissingObject(error)) return;
    throw error;
  }
  try {
    for await (const line of readLines(body, maxLineBytes)) if (line.bytes?.length) yield line.bytes.toString('utf8');
  } finally {
    body.destroy();
  }
}
