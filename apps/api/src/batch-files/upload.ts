import { PassThrough, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import type { Request } from 'express';
import { AppError, putObject, type BlobStore } from '@relay/core';

export interface UploadLimits {
  maxBytes: number;
  maxLines: number;
}

export interface Received {
  filename: string;
  purpose: string | undefined;
  bytes: number;
  lines: number;
}

/** Counts bytes and lines as they pass, and stops the stream the moment a limit is crossed. */
class Meter extends Transform {
  bytes = 0;
  newlines = 0;
  lastByte = 0x0a;
  constructor(private readonly limits: UploadLimits) {
    super();
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
    this.bytes += chunk.length;
    for (let i = chunk.indexOf(0x0a); i !== -1; i = chunk.indexOf(0x0a, i + 1)) this.newlines += 1;
    if (chunk.length) this.lastByte = chunk[chunk.length - 1]!;
    if (this.bytes > this.limits.maxBytes)
      return done(
        new AppError('payload_too_large', `the file is over ${this.limits.maxBytes} bytes, the most a batch input may be`, {
          param: 'file',
        }),
      );
    if (this.newlines > this.limits.maxLines)
      return done(
        new AppError('invalid_request', `the file has over ${this.limits.maxLines} lines, the most a batch may hold`, { param: 'file' }),
      );
    done(null, chunk);
  }
  get lines() {
    return this.newlines + (this.bytes > 0 && this.lastByte !== 0x0a ? 1 : 0);
  }
}

/**
 * Streams the `file` part of a multipart upload into the store under `key` while counting it;
 * nothing of it is held in memory beyond a chunk. Fields may come before or after the file (the
 * OpenAI SDK sends the file first), so `purpose` is judged by the caller once all is read.
 */
export async function receiveUpload(req: Request, store: BlobStore, key: string, limits: UploadLimits): Promise<Received> {
  if (!req.is('multipart/form-data'))
    throw new AppError('unsupported_media_type', 'upload the file as multipart/form-data with the fields file and purpose');
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: req.headers, limits: { files: 1, fields: 8, fieldSize: 1024, parts: 10, headerPairs: 100 } });
  } catch (error) {
    throw new AppError('invalid_request', `not a multipart body: ${(error as Error).message}`);
  }
  const fields: Record<string, string> = Object.create(null) as Record<string, string>;
  let stored: Promise<{ filename: string; meter: Meter }> | undefined;

  parser.on('field', (name, value) => {
    fields[name] = value;
  });
  parser.on('file', (name, stream, info) => {
    if (name !== 'file' || stored) {
      stream.resume();
      return;
    }
    const meter = new Meter(limits);
    const body = new PassThrough();
    stored = Promise.all([pipeline(stream, meter, body), putObject(store, key, body, { contentType: 'application/jsonl' })]).then(() => ({
      filename: info.filename ?? 'upload.jsonl',
      meter,
    }));
    // a limit crossed (or the store failing) stops everything: the store's upload and the parser,
    // so the rest of the request is not read for nothing
    stored.catch((error: unknown) => {
      body.destroy();
      parser.destroy(error as Error);
    });
  });
  await pipeline(req, parser).catch((error: unknown) => {
    if (error instanceof AppError) throw error;
    throw new AppError('invalid_request', `the multipart body did not parse: ${(error as Error).message}`);
  });
  if (!stored) throw new AppError('invalid_request', 'the upload has no file part (the field must be named "file")', { param: 'file' });
  const { filename, meter } = await stored;
  return { filename: filename.slice(0, 255), purpose: fields.purpose, bytes: meter.bytes, lines: meter.lines };
}
