import { z } from 'zod';

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
  response_format: z.enum(['url', 'b64_json']),
  watermark: z.boolean(),
  /** Prompt rewriting before generation: `standard` (the vendor's default) or `fast` (4.0 only). */
  optimize_prompt_options: z.object({ mode: z.enum(['standard', 'fast']) }).optional(),
  /** SSE, one event per finished image (4.0, 4.5, 5.0-lite); `generate` never sends it, `generateStream` always does. */
  stream: z.boolean().optional(),
});
export type ArkImageRequest = z.output<typeof arkImageRequestSchema>;

const slotError = z.object({ code: z.string(), message: z.string().default('') });

/** A success answer: each slot is an image (url or b64_json) or, in a set, an error. */
export const arkImageResponseSchema = z.object({
  model: z.string(),
  created: z.number().int(),
  data: z.array(
    z.union([
      z.object({ error: slotError }),
      z.object({ url: z.string().optional(), b64_json: z.string().optional(), size: z.string().default('') }),
    ]),
  ),
  usage: z.object({ generated_images: z.number().int(), output_tokens: z.number().int(), total_tokens: z.number().int() }).optional(),
});
export type ArkImageResponse = z.output<typeof arkImageResponseSchema>;

export const arkErrorSchema = z.object({
  error: z.object({ code: z.string(), message: z.string().default(''), param: z.string().optional() }),
});
