import { createHash } from 'node:crypto';
import { PassThrough, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import type { Request } from 'express';
import { AppError, deleteObject, formatSize, putObject, storeUnavailable, type BlobStore } from '@relay/core';
import { inputKeyOf, MAX_INPUT_IMAGES, MAX_PROMPT_CHARS, mimeOf, sniffImageFormat, type ImageForm } from '@relay/jobs';

/** The part names clients send images under: `image` (repeated by curl), `image[]` (the openai SDK, OpenWebUI), `image[0]`... */
const IMAGE_PART = /^image(?:\[\d*\])?$/;
const SNIFF_BYTES = 16;
/** The longest text field: a prompt of MAX_PROMPT_CHARS characters of up to 4 bytes each. */
const FIELD_BYTES = 4 * MAX_PROMPT_CHARS;

/** Counts the bytes, hashes them, learns the format from the first ones, and stops at the size limit. */
class Inspect extends Transform {
  bytes = 0;
  readonly hash = createHash('sha256');
  head = Buffer.alloc(0);
  constructor(
    private readonly maxBytes: number,
    private readonly param: string,
  ) {
    super();
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) {
      const max = `${formatSize(this.maxBytes)} (${this.maxBytes} bytes)`;
      return done(
        new AppError('payload_too_large', `${this.param}: the file is larger than ${max}, the most an input image may be`, {
          param: this.param,
        }),
      );
    }
    if (this.head.length < SNIFF_BYTES) {
      this.head = Buffer.concat([this.head, chunk.subarray(0, SNIFF_BYTES - this.head.length)]);
      if (this.head.length >= SNIFF_BYTES && !sniffImageFormat(this.head)) {
        return done(
          new AppError('invalid_request', `${this.param}: the file is not an image of a format the models take`, { param: this.param }),
        );
      }
    }
    this.hash.update(chunk);
    done(null, chunk);
  }
}

/**
 * The request into the parser until the form ends or is refused. Not stream.pipeline: that
 * destroys the request on a refusal, and the connection then stalls with the rest of the body
 * unread until the server times it out (the client's next request on it fails with a reset).
 */
function feed(req: Request, parser: busboy.Busboy) {
  return new Promise<void>((resolve, reject) => {
    parser.once('close', resolve);
    parser.once('error', reject);
    req.once('error', reject);
    // a client gone before its form ended
    req.once('close', () => req.complete || reject(new Error('the connection closed before the form ended')));
    req.pipe(parser);
  });
}

/**
 * An image edit sent as multipart/form-data, as the openai SDK, OpenWebUI and curl send it: every
 * image part streamed into the store under the job's input keys as it arrives (never whole in
 * memory, never in Redis), checked by its first bytes and its size; the other parts are fields.
 * A `mask` part is refused at once (the vendor has no masks). What was stored is deleted again
 * when the form is refused.
 */
export async function readImageForm(req: Request, store: BlobStore, jobId: string, maxBytes: number): Promise<ImageForm> {
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      limits: { files: MAX_INPUT_IMAGES + 1, fields: 64, fieldSize: FIELD_BYTES, parts: 96, headerPairs: 100 },
    });
  } catch (error) {
    throw new AppError('invalid_request', `not a multipart body: ${(error as Error).message}`);
  }
  const fields: ImageForm['fields'] = Object.create(null) as ImageForm['fields'];
  const stored: Array<Promise<ImageForm['files'][number]>> = [];
  const fail = (error: unknown) => parser.destroy(error as Error);

  parser.on('field', (name, value, info) => {
    if (info.valueTruncated) {
      return fail(
        new AppError('invalid_request', `${name}: the field is longer than ${FIELD_BYTES} bytes, the most a form field may hold`, {
          param: name,
        }),
      );
    }
    const known = fields[name];
    fields[name] = known === undefined ? value : [...(Array.isArray(known) ? known : [known]), value];
  });
  /** A part not kept: drained, and the error busboy destroys it with (when the form is refused) goes nowhere. */
  const skip = (stream: NodeJS.ReadableStream) => {
    stream.on('error', () => undefined);
    stream.resume();
  };
  parser.on('file', (name, stream) => {
    if (name === 'mask') {
      skip(stream);
      return fail(
        new AppError(
          'invalid_request',
          'mask is not supported: these models edit from the prompt and the images; describe the change instead',
          { param: 'mask' },
        ),
      );
    }
    if (!IMAGE_PART.test(name)) {
      skip(stream);
      return fail(
        new AppError('invalid_request', `unknown file part "${name.slice(0, 40)}"; images go in "image" (or "image[]")`, {
          param: name.slice(0, 40),
        }),
      );
    }
    const index = stored.length;
    if (index >= MAX_INPUT_IMAGES) {
      skip(stream);
      return fail(new AppError('invalid_request', `image takes at most ${MAX_INPUT_IMAGES} input images`, { param: 'image' }));
    }
    const param = `image[${index}]`;
    const inspect = new Inspect(maxBytes, param);
    const body = new PassThrough();
    // the key's extension is the format's, known only once the first bytes came: one neutral key, the mime beside it
    const key = inputKeyOf(jobId, index, 'upload');
    const upload = Promise.all([
      pipeline(stream, inspect, body),
      putObject(store, key, body, { contentType: 'application/octet-stream' }),
    ]).then(() => {
      const format = sniffImageFormat(inspect.head);
      if (!format) throw new AppError('invalid_request', `${param}: the file is not an image of a format the models take`, { param });
      return { key, mime: mimeOf(format), bytes: inspect.bytes, sha256: inspect.hash.digest('hex') };
    });
    upload.catch((error: unknown) => {
      body.destroy();
      fail(error);
    });
    stored.push(upload);
  });
  try {
    await feed(req, parser).catch((error: unknown) => {
      if (error instanceof AppError) throw error;
      throw new AppError('invalid_request', `the multipart body did not parse: ${(error as Error).message}`);
    });
    const files = await Promise.all(stored).catch((error: unknown) => {
      throw error instanceof AppError ? error : storeUnavailable(error);
    });
    return { fields, files };
  } catch (error) {
    // the rest of a refused form is read and dropped (as Node does with a body nobody reads), so
    // the refusal reaches the client and its kept-alive connection can carry the next request
    req.unpipe(parser);
    if (!req.complete) req.resume();
    await Promise.allSettled(stored.map((_, i) => deleteObject(store, inputKeyOf(jobId, i, 'upload'))));
    throw error;
  }
}
