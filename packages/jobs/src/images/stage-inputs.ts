import { AppError, checkUrl, putObject, storeUnavailable, type BlobStore, type UrlPolicy } from '@relay/core';
import { inputKeyOf } from '../files.js';
import { decodeDataImage, mimeOf, parseInputImage, type InputImageFormat } from './input-image.js';
import type { InputImageRef } from './job.js';

/** An input image checked in full, ready to be staged once the money is held. */
export type CheckedInput = { kind: 'url'; url: string } | { kind: 'data'; format: InputImageFormat; bytes: Buffer };

/**
 * Checks every input image in full before anything is reserved (a request that cannot run must
 * not touch the balance or the ledger): inline ones decoded (size, base64, format), URLs
 * resolved and held to the URL policy (the upstream, or the local simulator, would fetch them).
 */
export async function checkInputImages(
  image: string | string[] | undefined,
  limits: { maxBytes: number; urls: UrlPolicy },
): Promise<CheckedInput[]> {
  const list = image === undefined ? [] : Array.isArray(image) ? image : [image];
  return Promise.all(
    list.map(async (entry, index): Promise<CheckedInput> => {
      const param = Array.isArray(image) ? `image[${index}]` : 'image';
      const parsed = parseInputImage(entry);
      if (typeof parsed === 'string') throw new AppError('invalid_request', `${param}: ${parsed}`, { param });
      if (parsed.kind === 'url') {
        const verdict = await checkUrl(parsed.url, limits.urls);
        if (verdict.ok) return parsed;
        const message = `${param}: the URL ${verdict.reason}`;
        throw verdict.retryable
          ? new AppError('unavailable', message, { retryAfterMs: 2_000 })
          : new AppError('invalid_request', message, { param });
      }
      const bytes = decodeDataImage(parsed, limits.maxBytes);
      if (typeof bytes === 'string') throw new AppError('invalid_request', `${param}: ${bytes}`, { param });
      return { kind: 'data', format: parsed.format, bytes };
    }),
  );
}

/**
 * Inline images go to S3 before the job is queued, so the job (stored in clear in Redis)
 * holds only a key. URLs pass through: the upstream fetches them itself.
 */
export async function stageInputImages(store: BlobStore, jobId: string, inputs: CheckedInput[]): Promise<InputImageRef[]> {
  return Promise.all(
    inputs.map(async (input, index): Promise<InputImageRef> => {
      if (input.kind === 'url') return input;
      const key = inputKeyOf(jobId, index, input.format);
      const mime = mimeOf(input.format);
      try {
        await putObject(store, key, input.bytes, { contentType: mime, contentLength: input.bytes.length });
      } catch (cause) {
        throw storeUnavailable(cause);
      }
      return { kind: 'stored', key, mime };
    }),
  );
}
