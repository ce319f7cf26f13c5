import type { z } from 'zod';
import type { ImageModel } from '@relay/core';

type Request = {
  model: string;
  output_format?: 'png' | 'jpeg' | null;
  background?: 'auto' | 'transparent' | 'opaque' | null;
};
type Ctx = z.core.$RefinementCtx<unknown>;

/** The file format a model makes for a request: what it asks, else the model's own default. */
export const outputFormatOf = (request: Request, model: ImageModel): 'png' | 'jpeg' =>
  model.outputFormat ? (request.output_format ?? (request.background === 'transparent' ? 'png' : model.defaultOutputFormat)) : 'jpeg';

/**
 * output_format and background, per model: a model without the field honours only what it makes
 * anyway (JPEG; an opaque background), anything else is a 400 naming the field and the models
 * that take it, never a silent downgrade.
 */
export function checkOutputFields(
  request: Request,
  model: ImageModel,
  imageCount: number,
  takers: (which: (m: ImageModel) => boolean) => string,
  ctx: Ctx,
) {
  const refuse = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  if (request.output_format === 'png' && !model.outputFormat) {
    refuse('output_format', `${request.model} makes JPEG only; output_format "png" is taken by ${takers((m) => m.outputFormat)}`);
  }
  if (request.background !== 'transparent') return;
  if (!model.background) {
    refuse(
      'background',
      `${request.model} cannot make a transparent background; background "transparent" is taken by ${takers((m) => m.background)}`,
    );
  } else if (outputFormatOf(request, model) === 'jpeg') {
    refuse('background', 'background "transparent" needs output_format "png": JPEG has no transparency');
  } else if (model.transparentNeedsImage && imageCount === 0) {
    refuse('background', `${request.model} makes a transparent background only from an input image (send image)`);
  }
}
