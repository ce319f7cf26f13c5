import { z } from 'zod';
import type { ImageModel } from '@relay/core';
import { layerSchema, type ImageJob } from '@relay/jobs';

/**
 * What the image queue asks of a vendor, and what any vendor's adapter gives back: one shape for
 * every vendor (ark/ is one adapter), so the processors, the money and the presenters never read a
 * vendor's field. A checkpointed answer keeps this shape in the job.
 */

/**
 * An image a vendor delivered: a link (valid for a while) or the bytes; `size` WxH as it said, ''
 * if it did not; `layer` when it is a layer of the image before it (layer_decomposition).
 */
export const deliveredImageSchema = z
  .object({
    url: z.string().min(1).optional(),
    b64_json: z.string().min(1).optional(),
    size: z.string().catch(''),
    layer: layerSchema.optional().catch(undefined),
  })
  .refine((image) => image.url !== undefined || image.b64_json !== undefined, { message: 'an image is a link or bytes' });
export type DeliveredImage = z.output<typeof deliveredImageSchema>;

/** An image of a set the vendor did not deliver, with the vendor's code. */
export const failedImageSchema = z.object({ error: z.object({ code: z.string(), message: z.string().catch('') }) });

/** One answer: the model that made it, when, its images in set order, and what the vendor said beyond images. */
export const imageSetSchema = z.object({
  model: z.string(),
  created: z.number().int(),
  data: z.array(z.union([failedImageSchema, deliveredImageSchema])),
  /** Tools the vendor ran and their usage (web search), kept with the job as the vendor said them. */
  tools: z.unknown().optional(),
  /** The web searches the vendor counted for this call: a call with any pays its fee. */
  webSearches: z.number().int().min(0).optional(),
});
export type ImageSet = z.output<typeof imageSetSchema>;
export type ImageSlot = ImageSet['data'][number];
export const isFailedSlot = (slot: ImageSlot): slot is z.output<typeof failedImageSchema> => 'error' in slot;

/** A set as it streams: each image as it is made, each failure (`endsSet`: nothing follows it), then the end. */
export type ImageSetEvent =
  | { kind: 'image'; index: number; image: DeliveredImage; model?: string; created?: number }
  | {
      kind: 'failed';
      index: number;
      error: { code: string; message: string };
      moderation: boolean;
      endsSet: boolean;
      model?: string;
      created?: number;
    }
  | { kind: 'done'; model?: string; created?: number; tools?: unknown; webSearches?: number };

/** One call: the job's request with its input images as the vendor can read them (links or data URLs). */
export interface ImageCall {
  request: ImageJob['request'];
  model: ImageModel;
  vendorModel: string;
  inputs: string[];
}

export interface ImageAdapter {
  /**
   * The set, whole. An answer that delivered no image throws: `refused` (moderation) when the
   * vendor refused the content, else a transient error (nothing delivered, nothing paid for).
   */
  generate(call: ImageCall): Promise<ImageSet>;
  /** The set as the vendor makes it (see StreamInterrupted); a vendor that does not stream gives its answer as events. */
  generateStream(call: ImageCall, options?: { signal?: AbortSignal }): AsyncGenerator<ImageSetEvent, void, undefined>;
}

declare module './adapters.js' {
  /** The images queue's channels are called through an ImageAdapter, whatever their vendor. */
  interface Adapters {
    images: ImageAdapter;
  }
}
