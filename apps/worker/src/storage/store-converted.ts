import type { BlobStore } from '@relay/core';
import { convertImage, type Conversion } from '../images/convert-image.js';
import { downloadImage, putImageToStore, type CopyLimits, type ImageTarget, type StoredImage } from './copy-to-store.js';
import { notAnImage, SNIFF_BYTES, sniffImage } from './sniff-image.js';

/**
 * An image the vendor made in another format than the client asked (or at its own compression):
 * read whole, checked to be an image by its bytes as a copied one is, converted, and stored as
 * what it now is. Its dimensions are read from the converted file.
 */
export async function storeConverted(
  source: { url?: string; b64_json?: string },
  store: BlobStore,
  target: ImageTarget,
  limits: CopyLimits,
  conversion: Conversion,
): Promise<StoredImage> {
  const bytes = source.url ? await downloadImage(source.url, limits) : Buffer.from(source.b64_json ?? '', 'base64');
  const head = bytes.subarray(0, SNIFF_BYTES);
  if (!sniffImage(head)) throw notAnImage(head, undefined, true);
  return putImageToStore(store, target, await convertImage(bytes, conversion), limits.retry);
}
