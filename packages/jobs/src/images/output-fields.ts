import type { z } from 'zod';
import type { ImageModel } from '@relay/core';

/** The file formats a client may ask for: what the vendor makes, or what the worker converts it to. */
export type OutputFormat = 'png' | 'jpeg' | 'webp';

type Request = {
  model: string;
  output_format?: OutputFormat | null;
  output_compression?: number | null;
  background?: 'auto' | 'transparent' | 'opaque' | null;
};
type Ctx = z.core.$RefinementCtx<unknown>;

/**
 * The file format the vendor is asked to make: what the request asks where the model makes it;
 * for webp (which no model makes) PNG, a lossless source that keeps any alpha; else the model's
 * own default. A model without the field makes JPEG only.
 */
export function outputFormatOf(request: Request, model: ImageModel): 'png' | 'jpeg' {
  if (!model.outputFormat) return 'jpeg';
  const asked = request.output_format;
  if (asked === 'png' || asked === 'jpeg') return asked;
  if (asked === 'webp' || request.background === 'transparent') return 'png';
  return model.defaultOutputFormat;
}

/** The file format the client gets: what it asked, else what the model makes. */
export const deliveredFormatOf = (request: Request, model: ImageModel): OutputFormat =>
  request.output_format ?? outputFormatOf(request, model);

/**
 * What the worker does to the vendor's image before it is stored: convert it to the asked
 * format when the vendor cannot make it, or re-encode it at the asked compression. `quality` is
 * the encoder's (1-100); none: the file is stored as the vendor made it.
 */
export function conversionOf(request: Request, model: ImageModel): { format: OutputFormat; quality?: number } | undefined {
  const format = deliveredFormatOf(request, model);
  const compression = request.output_compression ?? undefined;
  if (compression === undefined && format === outputFormatOf(request, model)) return undefined;
  // OpenAI's output_compression is a level where 100 keeps the most: an encoder's quality, whose floor is 1
  return { format, ...(compression !== undefined ? { quality: Math.max(1, compression) } : {}) };
}

/**
 * output_format, output_compression and background, per model: png, jpeg and webp are made by the
 * vendor or converted by the worker; compression applies to jpeg and webp only (as at OpenAI); a
 * transparent background needs a model that makes one and a format with alpha, never a silent downgrade.
 */
export function checkOutputFields(
  request: Request,
  model: ImageModel,
  imageCount: number,
  takers: (which: (m: ImageModel) => boolean) => string,
  ctx: Ctx,
) {
  const refuse = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  const delivered = deliveredFormatOf(request, model);
  if (request.output_compression != null && delivered === 'png') {
    refuse(
      'output_compression',
      `output_compression applies to jpeg and webp only; this request's output_format is png${request.output_format ? '' : ` (${request.model}'s default)`}`,
    );
  }
  if (request.background !== 'transparent') return;
  if (!model.background) {
    refuse(
      'background',
      `${request.model} cannot make a transparent background; background "transparent" is taken by ${takers((m) => m.background)}`,
    );
  } else if (delivered === 'jpeg') {
    refuse('background', 'background "transparent" needs output_format "png" or "webp": JPEG has no transparency');
  } else if (model.transparentNeedsImage && imageCount === 0) {
    refuse('background', `${request.model} makes a transparent background only from an input image (send image)`);
  }
}
