import { z } from 'zod';
import { price } from '../config/price.js';
import type { CapabilityDeclaration } from './declaration.js';

/** What the upstream model accepts as `size`; the relay maps the SPEC's sizes onto it. */
const upstreamSizeSchema = z.union([
  z.literal('adaptive'),
  z.strictObject({
    keywords: z.array(z.string()),
    maxPixels: z.number().int().positive(),
  }),
]);

export const imageModelSchema = z.strictObject({
  upstream: z.string(),
  upstreamModel: z.string(),
  inputImages: z.strictObject({ min: z.number().int().min(0), max: z.number().int().min(0) }),
  seed: z.boolean(),
  /** Default guidance_scale; null when the model does not take the field. */
  guidanceScale: z.number().nullable(),
  sequential: z.boolean(),
  outputFormat: z.boolean(),
  /** What the relay asks for when a request names no output_format (5.0 pro and 5.5 make PNG by default). */
  defaultOutputFormat: z.enum(['jpeg', 'png']).default('jpeg'),
  /**
   * Whether the model takes the vendor's `background` (auto, transparent: a PNG with alpha, opaque).
   * `transparentNeedsImage`: transparency only when editing an input image (5.0 pro).
   */
  background: z.boolean().default(false),
  transparentNeedsImage: z.boolean().default(false),
  /**
   * The most layers the vendor splits an input image into (`layer_decomposition`; 0: the model does
   * not take it). Each layer is an image delivered beside the base one: what a request reserves.
   */
  maxLayers: z.number().int().min(0).default(0),
  /** Whether the model takes the vendor's web search tool (`tools: [{type: "web_search"}]`, 5.0 lite). */
  webSearch: z.boolean().default(false),
  /**
   * Micro-units per upstream call that searched (the vendor bills the search per request, apart from
   * the images, however many searches it ran): reserved per call asked to search, charged per call
   * whose answer counts a search (`usage.tool_usage.web_search`).
   */
  webSearchPrice: price().default(0),
  upstreamSize: upstreamSizeSchema,
  /** The modes of the vendor's optimize_prompt_options.mode the model takes (none: it takes no such field). */
  promptModes: z.array(z.enum(['standard', 'fast'])).default([]),
  /** Whether the vendor streams the model's images as they are made (Ark `stream: true`). */
  stream: z.boolean().default(false),
  /** Micro-units per delivered image. */
  price: price(),
});

export type ImageModel = z.output<typeof imageModelSchema>;
export type UpstreamSize = ImageModel['upstreamSize'];

/** Image generation, edits included: one queue, one processor, whatever door the request used. */
export const IMAGES = {
  id: 'images',
  kind: 'img',
  jobName: 'generate',
  models: 'imageModels',
  model: imageModelSchema,
  noun: 'image',
  /** One image a turn: a set of 15 waits out 15 turns. */
  quantum: 1,
  operation: 'image_generation',
  /** The formats the vendors make: the worker names a result by its bytes. */
  files: { jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp' },
} as const satisfies CapabilityDeclaration<'images', typeof imageModelSchema>;
