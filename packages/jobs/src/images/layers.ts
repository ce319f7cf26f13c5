import { z } from 'zod';
import type { ImageModel } from '@relay/core';

/**
 * What the vendor says of a layer (`layer_decomposition`, the volcengine SDK's Image): its place
 * in the stack (`z_index`), where it sits on the base image (`bounding_box`: `absolute` pixels and
 * `normalized` coordinates, each `[x1, y1, x2, y2]`), and its name and description.
 */
export const layerSchema = z.strictObject({
  z_index: z.number().int(),
  bounding_box: z
    .strictObject({ absolute: z.array(z.number().int()).optional(), normalized: z.array(z.number().int()).optional() })
    .optional(),
  name: z.string().optional(),
  description: z.string().optional(),
});
export type Layer = z.output<typeof layerSchema>;

type Request = {
  model: string;
  layer_decomposition?: boolean | null;
  n?: number | null;
  sequential_image_generation?: 'auto' | 'disabled';
  background?: 'auto' | 'transparent' | 'opaque' | null;
};
type Ctx = z.core.$RefinementCtx<unknown>;

/** How many images a generation may deliver with layers: the base image and every layer. */
export const layeredImagesOf = (model: ImageModel) => 1 + model.maxLayers;

/**
 * layer_decomposition: on the models that take it, splitting exactly one input image, into one
 * answer (no n, no set: a request's images stay numbered within what one job stores), and without
 * a transparent background, which the vendor refuses beside layers.
 */
export function checkLayerFields(
  request: Request,
  model: ImageModel,
  imageCount: number,
  takers: (which: (m: ImageModel) => boolean) => string,
  ctx: Ctx,
) {
  if (request.layer_decomposition !== true) return;
  const refuse = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  if (model.maxLayers === 0) {
    refuse(
      'layer_decomposition',
      `layer_decomposition is only supported by ${takers((m) => m.maxLayers > 0)}; ${request.model} does not take it`,
    );
    return;
  }
  if (imageCount !== 1) {
    refuse('layer_decomposition', `layer_decomposition splits exactly one input image into layers; got ${imageCount}`);
  }
  if ((request.n ?? 1) > 1 || request.sequential_image_generation === 'auto') {
    refuse(
      'layer_decomposition',
      'layer_decomposition makes one image and its layers: n must be 1 and sequential_image_generation not auto',
    );
  }
  if (request.background === 'transparent') {
    refuse('background', 'background "transparent" cannot be used with layer_decomposition (the vendor refuses both at once)');
  }
}
