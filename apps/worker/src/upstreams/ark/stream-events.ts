import { z } from 'zod';
import { arkSizeSchema, arkSlotErrorSchema, arkUsageSchema } from './schema.js';

/**
 * The events of Ark's `stream: true` answer (BytePlus "image-generation-streaming-responses";
 * SSE, `event:` naming the JSON's `type`, then `data: [DONE]`). `model` and `created` are on
 * every event in the vendor's docs (the Python SDK's types call it `created_at`); nothing here
 * needs them, so their absence does not fail an image.
 */
const stamp = { model: z.string().optional().catch(undefined), created: z.number().int().optional().catch(undefined) };

/** One finished image: a link (valid 24 h) or the file itself, per `response_format`. */
export const arkImageSucceededSchema = z
  .object({
    type: z.literal('image_generation.partial_succeeded'),
    ...stamp,
    /** 0-based position in the set. */
    image_index: z.number().int().min(0),
    url: z.string().min(1).optional(),
    b64_json: z.string().min(1).optional(),
    /** WxH as generated, which a keyword size (2K, ...) leaves to the model; '' when not sent. */
    size: arkSizeSchema,
  })
  .refine((event) => event.url !== undefined || event.b64_json !== undefined, { message: 'an image event carries url or b64_json' });

/** One image that failed: a content refusal (the set goes on) or an internal error (the set ends). */
export const arkImageFailedSchema = z.object({
  type: z.literal('image_generation.partial_failed'),
  ...stamp,
  image_index: z.number().int().min(0),
  error: arkSlotErrorSchema,
});

/**
 * The set is over: usage counts the delivered images only (the billing unit). Every usage field
 * may be missing; the images already arrived and are the caller's whatever the summary says.
 */
export const arkStreamCompletedSchema = z.object({
  type: z.literal('image_generation.completed'),
  ...stamp,
  usage: arkUsageSchema.optional().catch(undefined),
  /** Tools the vendor ran for the set (web search), kept with the job. */
  tools: z.array(z.unknown()).optional().catch(undefined),
});

export const arkStreamEventSchema = z.discriminatedUnion('type', [arkImageSucceededSchema, arkImageFailedSchema, arkStreamCompletedSchema]);
export type ArkStreamEvent = z.output<typeof arkStreamEventSchema>;
export type ArkImageSucceeded = z.output<typeof arkImageSucceededSchema>;
export type ArkImageFailed = z.output<typeof arkImageFailedSchema>;
export type ArkStreamCompleted = z.output<typeof arkStreamCompletedSchema>;

export const ARK_STREAM_EVENT_TYPES: ReadonlySet<string> = new Set(arkStreamEventSchema.options.map((o) => o.shape.type.value));

/** A partial_failed that ends the set: the vendor stops at an internal error, not at a refusal. */
export const endsSet = (event: ArkImageFailed) => event.error.code.startsWith('Internal');
