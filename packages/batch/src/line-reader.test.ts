import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { isBlank, readLines, type FileLine } from './line-reader.js';

const read = async (chunks: Buffer[], maxLineBytes: number, start?: { no: number; offset: number }) => {
  const lines: FileLine[] = [];
  for await (const line of readLines(Readable.from(chunks), maxLineBytes, start)) lines.push(line);
  return lines;
};
const text = (lines: FileLine[]) => lines.map((l) => l.bytes?.toString('latin1') ?? null);

/** Cuts `bytes` at the given sizes (cycled), as a network or file stream would hand them over. */
function chunked(bytes: Buffer, sizes: number[]): Buffer[] {
  const chunks: Buffer[] = [];
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const size = sizes[i % sizes.length]!;
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  return chunks;
}

describe('the JSONL line reader', () => {
  test('lines with their numbers and byte offsets; a trailing newline ends the last line, adds none', async () => {
    const lines = await read([Buffer.from('{"a":1}\n\n{"b"'), Buffer.from(':2}\n')], 100);
    expect(lines.map(({ no, offset, end }) => ({ no, offset, end }))).toEqual([
      { no: 1, offset: 0, end: 8 },
      { no: 2, offset: 8, end: 9 },
      { no: 3, offset: 9, end: 17 },
    ]);
    expect(text(lines)).toEqual(['{"a":1}', '', '{"b":2}']);
  });

  test('a last line without its newline still counts; an empty file has no line', async () => {
    expect(text(await read([Buffer.from('x\ny')], 10))).toEqual(['x', 'y']);
    expect(await read([], 10)).toEqual([]);
  });

  test('a line over the limit is skipped through, its place kept', async () => {
    const lines = await read([Buffer.from('short\n'), Buffer.from('x'.repeat(30)), Buffer.from('x'.repeat(30) + '\nok\n')], 20);
    expect(text(lines)).toEqual(['short', null, 'ok']);
    expect(lines[2]).toMatchObject({ no: 3, offset: 67 });
  });

  test('blank lines are whitespace only', () => {
    expect(isBlank(Buffer.from(' \t\r'))).toBe(true);
    expect(isBlank(Buffer.from(''))).toBe(true);
    expect(isBlank(Buffer.from(' {} '))).toBe(false);
  });

  // any file, cut into chunks anywhere: the lines are those of the file split on newlines, each at
  // its true offset, over-long ones null; and reading resumed at any line gives the same rest
  const line = fc.uint8Array({ maxLength: 24 }).map((bytes) => Buffer.from(bytes.filter((b) => b !== 0x0a)));
  test('property: whatever the chunking, the lines and offsets of the file', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { maxLength: 12 }),
        fc.boolean(),
        fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 0, max: 30 }),
        async (content, trailingNewline, sizes, maxLineBytes) => {
          const file = Buffer.concat(content.flatMap((l, i) => (i < content.length - 1 || trailingNewline ? [l, Buffer.from('\n')] : [l])));
          // the model: the file split on newlines, a final empty piece being no line
          const pieces = file.length ? file.toString('latin1').split('\n') : [];
          if (pieces.at(-1) === '') pieces.pop();
          const got = await read(chunked(file, sizes), maxLineBytes);
          expect(text(got)).toEqual(pieces.map((p) => (p.length > maxLineBytes ? null : p)));
          let offset = 0;
          got.forEach((l, i) => {
            expect(l).toMatchObject({ no: i + 1, offset });
            expect(file.subarray(l.offset, l.end).toString('latin1').replace(/\n$/, '')).toBe(pieces[i]);
            offset = l.end;
          });
          expect(offset).toBe(file.length);

          const from = got[Math.floor(got.length / 2)];
          if (from) {
            const resumed = await read(chunked(file.subarray(from.offset), sizes), maxLineBytes, from);
            expect(resumed).toEqual(got.slice(from.no - 1));
          }
        },
      ),
    );
  });
});
