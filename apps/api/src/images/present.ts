import { getObjectBuffer, type BlobStore } from '@relay/core';
import { parseFileId, type ImageJobResult, type ImageRequest } from '@relay/jobs';
import type { ImagesResponse } from '../schemas/openai.js';

/**
 * The upstream reports no moderation detail for images it delivers, only refusals. A delivered
 * image therefore passed its input and output checks: that is what these fields state.
 */
const passed = { filtered: false, severity: 'safe' };
const contentFilter = { hate: passed, self_harm: passed, sexual: passed, violence: passed };
const promptFilter = { ...contentFilter, profanity: { detected: false, filtered: false } };

/** The SPEC's response: one entry per stored image, each with the relay's own stable link. */
export async function presentImages(
  result: ImageJobResult,
  request: Pick<ImageRequest, 'prompt' | 'response_format'>,
  store: BlobStore,
  publicBase: string,
): Promise<ImagesResponse> {
  const data = await Promise.all(
    result.images.map(async (image) => ({
      url: `${publicBase}/files/${image.fileId}`,
      ...(request.response_format === 'b64_json'
        ? { b64_json: (await getObjectBuffer(store, parseFileId(image.fileId)!.key)).toString('base64') }
        : {}),
      size: image.size,
      revised_prompt: request.prompt,
      content_filter_results: contentFilter,
      prompt_filter_results: promptFilter,
    })),
  );
  return {
    created: result.created,
    data,
    usage: result.usage,
    ...(result.failed.length ? { failed: result.failed } : {}),
  };
}
