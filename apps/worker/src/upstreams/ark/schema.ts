import { z } from 'zod';
import { readArkSize } from './size.js';

/** The Ark images API's request body, as far as the relay sends it. */
export const arkImageRequestSchema = z.object({
  model: z.string(),
  prompt: z.string(),
  image: z.union([z.string(), z.array(z.string())]).optional(),
  size: z.string().optional(),
  seed: z.number().int().optional(),
  guidance_scale: z.number().optional(),
  sequential_image_generation: z.enum(['auto', 'disabled']).optional(),
  sequential_image_generation_options: z.object({ max_images: z.number().int() }).optional(),
  output_format: z.enum(['jpeg', 'png']).optional(),
  /** 5.0 pro and 5.5: transparent makes a PNG with alpha. */
  background: z.enum(['auto', 'transparent', 'opaque']).optional(),
  response_format: z.enum(['url', 'b64_json']),
  watermark: z.boolean(),
  /** Prompt rewriting before generation: `standard` (the vendor's default) or `fast` (4.0 only). */
  optimize_prompt_options: z.object({ mode: z.enum(['standard', 'fast']) }).optional(),
  /** 5.0 lite: the vendor's web search. */
  tools: z.array(z.object({ type: z.literal('web_search') })).optional(),
  /** 5.0 pro: the one input image split into a base image and layers. */
  layer_decomposition: z.boolean().optional(),
  /** SSE, one event per finished image (4.0, 4.5, 5.0-lite); `generate` never sends it, `generateStream` always does. */
  stream: z.boolean().optional(),
});
export type ArkImageRequest = z.output<typeof arkImageRequestSchema>;

/**
 * What proves delivery is required (an image's link or bytes); everything else a paid answer
 * carries is optional, and a field of the wrong type reads as absent: a 200 with images is
 * never rejected (and so never bought again) for a field the relay can derive or leave out.
 */
const maybe = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);
const count = maybe(z.number().int().min(0));

export const arkSizeSchema = z.unknown().optional().transform(readArkSize);
export const arkSlotErrorSchema = z.object({ code: z.string(), message: z.string().catch('') });

/** usage: only `generated_images` is documented for every model (3.0 answers carry nothing else). */
export const arkUsageSchema = z.object({
  generated_images: count,
  output_tokens: count,
  total_tokens: count,
  input_images: count,
  /** Web search and other tools, billed by the vendor apart from images (5.0 lite). */
  tool_usage: maybe(z.record(z.string(), z.unknown())),
});
export type ArkUsage = z.output<typeof arkUsageSchema>;

const int = maybe(z.number().int());
const box = maybe(z.object({ absolute: maybe(z.array(z.number().int())), normalized: maybe(z.array(z.number().int())) }));

/**
 * A layer's description as the volcengine SDK's Image carries it beside the link: `z_index` makes
 * it a layer, the rest is kept where it reads.
 */
const deliveredSlot = z
  .object({
    url: maybe(z.string().min(1)),
    b64_json: maybe(z.string().min(1)),
    size: arkSizeSchema,
    z_index: int,
    bounding_box: box,
    name: maybe(z.string()),
    description: maybe(z.string()),
  })
  .refine((slot) => slot.url !== undefined || slot.b64_json !== undefined);
const failedSlot = z.object({ error: arkSlotErrorSchema });

/** A slot that is neither an image nor an error keeps its place in the set, as a failed one. */
const emptySlot = z.unknown().transform(() => ({
  error: { code: 'upstream_empty_slot', message: 'the upstream sent a slot with neither an image nor an error' },
}));

/** A slot of the answer: an image, or a failure of its own. */
export const arkSlotSchema = z.union([failedSlot, deliveredSlot, emptySlot]);

/** A success answer as it arrives: each slot is an image (url or b64_json) or, in a set, an error. */
export const arkWireResponseSchema = z.object({
  model: maybe(z.string()),
  created: maybe(z.number().int()),
  data: z.array(arkSlotSchema),
  usage: maybe(arkUsageSchema),
  tools: maybe(z.array(z.unknown())),
});

/**
 * The answer as the adapter hands it on, and as a job's checkpoint keeps it: `model` and
 * `created` filled in (the model sent, the time it arrived).
 */
export const arkImageResponseSchema = z.object({
  model: z.string(),
  created: z.number().int(),
  data: z.array(arkSlotSchema),
  usage: maybe(arkUsageSchema),
  tools: maybe(z.array(z.unknown())),
});
export type ArkImageResponse = z.output<typeof arkImageResponseSchema>;

export const arkErrorSchema = z.object({
  error: z.object({ code: z.string(), message: z.string().catch(''), param: maybe(z.string()) }),
});
