import { getObjectBuffer, type BlobStore } from '@relay/core';
import { parseFileId } from '../files.js';
import type { ImageJobResult, StoredFile } from '../images/job.js';
import type { ImageRequest } from '../images/request.js';
import type { ImagesResponse } from './openai.js';
import { outputFormatOfFile } from './image-events.js';

/**
 * The upstream reports no moderation detail for images it delivers, only refusals. A delivered
 * image therefore passed its input and output checks: that is what these fields state.
 */
const passed = { filtered: false, severity: 'safe' };
const contentFilter = { hate: passed, self_harm: passed, sexual: passed, violence: passed };
const promptFilter = { ...contentFilter, profanity: { detected: false, filtered: false } };

/**
 * The stored images as OpenAI's `data` entries read them: each image with the layers stored after
 * it (layer_decomposition) under its `layers`, so `data` holds the pictures a client asked for and
 * the openai SDK's types still fit. A layer with no image before it stands as its own entry.
 */
function withLayers(images: StoredFile[]): Array<{ image: StoredFile; layers: StoredFile[] }> {
  const entries: Array<{ image: StoredFile; layers: StoredFile[] }> = [];
  for (const image of images) {
    const last = entries.at(-1);
    if (image.layer && last) last.layers.push(image);
    else entries.push({ image, layers: [] });
  }
  return entries;
}

/**
 * The SPEC's response: one entry per stored image, each with the relay's own stable link. Only a
 * `b64_json` answer reads the files back, from `store` (batch lines never ask for one).
 */
export async function presentImages(
  result: ImageJobResult,
  request: Pick<ImageRequest, 'prompt' | 'response_format'>,
  publicBase: string,
  store?: BlobStore,
): Promise<ImagesResponse> {
  const inline = request.response_format === 'b64_json';
  if (inline && !store) throw new Error('a b64_json answer needs the store to read its files from');
  const file = async (image: StoredFile) => ({
    url: `${publicBase}/files/${image.fileId}`,
    ...(inline ? { b64_json: (await getObjectBuffer(store!, parseFileId(image.fileId)!.key)).toString('base64') } : {}),
    size: image.size,
  });
  const data = await Promise.all(
    withLayers(result.images).map(async ({ image, layers }) => ({
      ...(await file(image)),
      ...image.layer,
      revised_prompt: request.prompt,
      content_filter_results: contentFilter,
      prompt_filter_results: promptFilter,
      ...(layers.length ? { layers: await Promise.all(layers.map(async (layer) => ({ ...(await file(layer)), ...layer.layer! }))) } : {}),
    })),
  );
  const first = result.images[0];
  return {
    created: result.created,
    data,
    ...(first ? { output_format: outputFormatOfFile(first) } : {}),
    usage: result.usage,
    ...(result.failed.length ? { failed: result.failed } : {}),
  };
}
