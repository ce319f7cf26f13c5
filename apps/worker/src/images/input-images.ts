import { getObjectBuffer, type BlobStore } from '@relay/core';
import type { ImageJob, InputImageRef } from '@relay/jobs';

/** Stored uploads go upstream inline again: the store is private, the upstream cannot fetch it. */
async function readable(ref: InputImageRef, store: BlobStore): Promise<string> {
  if (ref.kind === 'url') return ref.url;
  const bytes = await getObjectBuffer(store, ref.key);
  return `data:${ref.mime};base64,${bytes.toString('base64')}`;
}

/** A job's input images as any vendor can read them: the client's links, or data URLs of what it uploaded. */
export const inputImagesOf = (request: ImageJob['request'], store: BlobStore) =>
  Promise.all(request.image.map((ref) => readable(ref, store)));
