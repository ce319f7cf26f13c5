import { AppError, putObject, type BlobStore } from '@relay/core';
import { inputKeyOf, looksLike, mimeOf, parseInputImage, type InputImageRef } from '@relay/jobs';

/**
 * Base64 inputs go to S3 before the job is queued, so the job (stored in clear in Redis)
 * holds only a key. URLs pass through: the upstream fetches them itself.
 */
export async function stageInputImages(
  store: BlobStore,
  jobId: string,
  image: string | string[] | undefined,
  maxBytes: number,
): Promise<InputImageRef[]> {
  const list = image === undefined ? [] : Array.isArray(image) ? image : [image];
  return Promise.all(
    list.map(async (entry, index): Promise<InputImageRef> => {
      const param = Array.isArray(image) ? `image[${index}]` : 'image';
      const parsed = parseInputImage(entry);
      if (typeof parsed === 'string') throw new AppError('invalid_request', parsed, { param });
      if (parsed.kind === 'url') return parsed;
      const bytes = Buffer.from(parsed.base64, 'base64');
      if (bytes.length > maxBytes) {
        throw new AppError('invalid_request', `${param} is ${bytes.length} bytes; input images may be at most ${maxBytes} bytes`, { param });
      }
      if (!looksLike(parsed.format, bytes)) {
        throw new AppError('invalid_request', `${param} does not contain a ${parsed.format} image`, { param });
      }
      const key = inputKeyOf(jobId, index, parsed.format);
      const mime = mimeOf(parsed.format);
      try {
        await putObject(store, key, bytes, { contentType: mime, contentLength: bytes.length });
      } catch (cause) {
        throw new AppError('unavailable', 'the file store is unavailable; retry shortly', { retryAfterMs: 2_000, cause });
      }
      return { kind: 'stored', key, mime };
    }),
  );
}
