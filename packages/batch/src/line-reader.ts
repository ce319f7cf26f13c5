import type { Readable } from 'node:stream';

/** A line of a JSONL file: its number (from 1), where it starts and ends, its bytes (null when over the limit). */
export interface FileLine {
  no: number;
  offset: number;
  /** The offset right after its newline: where the next line starts. */
  end: number;
  bytes: Buffer | null;
}

/**
 * Splits a stream into lines without holding more than one line (up to `maxLineBytes`; a longer
 * one is skipped through and given as `bytes: null`), counting numbers and byte offsets from
 * where the stream starts in the file, so reading can resume at any line.
 */
export async function* readLines(stream: Readable, maxLineBytes: number, start = { no: 1, offset: 0 }): AsyncGenerator<FileLine> {
  let no = start.no;
  let offset = start.offset;
  let parts: Buffer[] = [];
  let size = 0;
  let tooLong = false;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    let from = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, from)) {
      const piece = chunk.subarray(from, nl);
      const length = size + piece.length;
      const bytes = tooLong || length > maxLineBytes ? null : parts.length ? Buffer.concat([...parts, piece]) : Buffer.from(piece);
      yield { no, offset, end: offset + length + 1, bytes };
      offset += length + 1;
      no += 1;
      parts = [];
      size = 0;
      tooLong = false;
      from = nl + 1;
    }
    const rest = chunk.subarray(from);
    size += rest.length;
    if (size > maxLineBytes) {
      tooLong = true;
      parts = [];
    } else if (rest.length) {
      parts.push(Buffer.from(rest));
    }
  }
  if (size > 0) yield { no, offset, end: offset + size, bytes: tooLong ? null : Buffer.concat(parts) };
}

/** Whether a line holds nothing but whitespace (not a request: skipped, as a trailing newline is). */
export const isBlank = (bytes: Buffer) => bytes.every((b) => b === 0x20 || b === 0x09 || b === 0x0d);
