import { z } from 'zod';
import { jobMetaSchema } from '../meta.js';
import { layerSchema } from './layers.js';
import { imageRequestFields } from './request.js';

/**
 * An input image as the job carries it: a URL the upstream fetches itself, or a base64
 * upload the API has already put into S3 (blobs never travel through Redis).
 */
export const inputImageRefSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('url'), url: z.string() }),
  z.strictObject({ kind: z.literal('stored'), key: z.string(), mime: z.string() }),
]);
export type InputImageRef = z.output<typeof inputImageRefSchema>;

/** The job is the validated request itself, with `image` swapped for references. */
export const imageJobSchema = z.strictObject({
  meta: jobMetaSchema,
  request: imageRequestFields.omit({ image: true }).extend({ image: z.array(inputImageRefSchema) }),
});
export type ImageJob = z.output<typeof imageJobSchema>;

export const storedFileSchema = z.strictObject({
  index: z.number().int().min(0),
  fileId: z.string(),
  /** WIDTHxHEIGHT as the upstream reported it. */
  size: z.string(),
  bytes: z.number().int().min(0),
  contentType: z.string(),
  /** A layer of the image stored before it (layer_decomposition), as the vendor described it. */
  layer: layerSchema.optional(),
});
export type StoredFile = z.output<typeof storedFileSchema>;

export const imageJobResultSchema = z.strictObject({
  created: z.number().int(),
  upstreamModel: z.string(),
  images: z.array(storedFileSchema),
  /** Slots of a sequential set the upstream could not deliver (moderation, internal stop). */
  failed: z.array(z.strictObject({ index: z.number().int(), code: z.string(), message: z.string() })),
  usage: z.strictObject({
    generated_images: z.number().int().min(0),
    output_tokens: z.number().int().min(0),
    total_tokens: z.number().int().min(0),
  }),
  /** Tools the vendor ran for the set and their usage (web search), as it said them: kept with the job. */
  tools: z.unknown().optional(),
});
export type ImageJobResult = z.output<typeof imageJobResultSchema>;

declare module '../queues.js' {
  /** The images queue's jobs: this payload in, this result out. */
  interface QueueContract {
    images: { payload: ImageJob; result: ImageJobResult };
  }
}
