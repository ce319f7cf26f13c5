import { getObjectBuffer, type BlobStore, type ImageModel } from '@relay/core';
import { maxImagesOf, type ImageJob, type InputImageRef } from '@relay/jobs';
import type { ArkImageRequest } from '../upstreams/ark/schema.js';
import { upstreamSize } from './upstream-size.js';

/** Stored uploads go upstream inline again: the store is private, the upstream cannot fetch it. */
async function toUpstreamImage(ref: InputImageRef, store: BlobStore): Promise<string> {
  if (ref.kind === 'url') return ref.url;
  const bytes = await getObjectBuffer(store, ref.key);
  return `data:${ref.mime};base64,${bytes.toString('base64')}`;
}

/**
 * The upstream body for a job. Results are always asked for as links and copied into the
 * store, whatever the client wants back; the SPEC's defaults are sent explicitly.
 */
export async function buildArkRequest(request: ImageJob['request'], model: ImageModel, store: BlobStore): Promise<ArkImageRequest> {
  const images = await Promise.all(request.image.map((ref) => toUpstreamImage(ref, store)));
  const sequential = model.sequential && request.sequential_image_generation === 'auto';
  return {
    model: model.upstreamModel,
    prompt: request.prompt,
    ...(images.length === 1 ? { image: images[0] } : images.length > 1 ? { image: images } : {}),
    size: upstreamSize(request.size, model.upstreamSize),
    ...(model.seed && request.seed !== undefined ? { seed: request.seed } : {}),
    ...(model.guidanceScale !== null ? { guidance_scale: request.guidance_scale ?? model.guidanceScale } : {}),
    ...(model.sequential ? { sequential_image_generation: sequential ? 'auto' : 'disabled' } : {}),
    ...(sequential ? { sequential_image_generation_options: { max_images: maxImagesOf(request, images.length) } } : {}),
    ...(model.outputFormat ? { output_format: request.output_format ?? 'jpeg' } : {}),
    ...(request.optimize_prompt_options && model.promptModes.length ? { optimize_prompt_options: request.optimize_prompt_options } : {}),
    response_format: 'url',
    watermark: request.watermark ?? true,
  };
}
