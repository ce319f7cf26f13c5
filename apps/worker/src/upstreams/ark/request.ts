import { maxImagesOf, outputFormatOf } from '@relay/jobs';
import type { ImageCall } from '../images.js';
import type { ArkImageRequest } from './schema.js';
import { upstreamSize } from './request-size.js';

/**
 * Ark's body for a call. Results are always asked for as links and copied into the store,
 * whatever the client wants back; the SPEC's defaults are sent explicitly.
 */
export function arkRequestOf({ request, model, vendorModel, inputs }: ImageCall): ArkImageRequest {
  const sequential = model.sequential && request.sequential_image_generation === 'auto';
  return {
    model: vendorModel,
    prompt: request.prompt,
    ...(inputs.length === 1 ? { image: inputs[0] } : inputs.length > 1 ? { image: inputs } : {}),
    size: upstreamSize(request.size, model.upstreamSize),
    ...(model.seed && request.seed !== undefined ? { seed: request.seed } : {}),
    ...(model.guidanceScale !== null ? { guidance_scale: request.guidance_scale ?? model.guidanceScale } : {}),
    ...(model.sequential ? { sequential_image_generation: sequential ? 'auto' : 'disabled' } : {}),
    ...(sequential ? { sequential_image_generation_options: { max_images: maxImagesOf(request, inputs.length) } } : {}),
    ...(model.outputFormat ? { output_format: outputFormatOf(request, model) } : {}),
    // auto and opaque are what a model without the field makes anyway: only its takers are sent it
    ...(model.background && request.background ? { background: request.background } : {}),
    ...(request.optimize_prompt_options && model.promptModes.length ? { optimize_prompt_options: request.optimize_prompt_options } : {}),
    ...(model.webSearch && request.tools?.length ? { tools: [{ type: 'web_search' as const }] } : {}),
    ...(model.maxLayers > 0 && request.layer_decomposition ? { layer_decomposition: true } : {}),
    response_format: 'url',
    watermark: request.watermark ?? true,
  };
}
