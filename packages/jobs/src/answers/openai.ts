import { z } from 'zod';

const filter = z.object({ filtered: z.boolean(), severity: z.string() });
const contentFilter = z.object({ hate: filter, self_harm: filter, sexual: filter, violence: filter });

/** A layer of an image (layer_decomposition): its own stored file and the vendor's description of it. */
const layerEntry = z.object({
  url: z.string(),
  b64_json: z.string().optional(),
  size: z.string(),
  z_index: z.number().int().describe('Its place in the stack: higher lies above'),
  bounding_box: z
    .object({ absolute: z.array(z.number().int()).optional(), normalized: z.array(z.number().int()).optional() })
    .optional()
    .describe('Where it sits on the image: [x1, y1, x2, y2] in pixels (absolute) and normalized'),
  name: z.string().optional(),
  description: z.string().optional(),
});

/** The answer of POST /v1/images/generations (docs/api.md says how each field is derived). */
export const imagesResponseSchema = z
  .object({
    created: z.number().int().describe('Unix seconds, as the upstream reported'),
    data: z.array(
      z.object({
        url: z.string().describe("The relay's stable link to the stored image (streamed, or a 302 to a presigned URL: FILES_MODE)"),
        b64_json: z.string().optional().describe('With response_format b64_json: the stored file, base64, no data: prefix'),
        size: z.string().describe('WIDTHxHEIGHT of this image'),
        revised_prompt: z.string(),
        content_filter_results: contentFilter,
        prompt_filter_results: contentFilter.extend({ profanity: z.object({ detected: z.boolean(), filtered: z.boolean() }) }),
        layers: z
          .array(layerEntry)
          .optional()
          .describe('With layer_decomposition: the layers the image was split into, each a stored file of its own'),
      }),
    ),
    output_format: z
      .enum(['png', 'jpeg', 'webp'])
      .optional()
      .describe("The stored images' file format, as asked (converted by the relay where the model cannot make it)"),
    usage: z.object({ generated_images: z.number().int(), output_tokens: z.number().int(), total_tokens: z.number().int() }),
    failed: z
      .array(z.object({ index: z.number().int(), code: z.string(), message: z.string() }))
      .optional()
      .describe('What was not delivered: failed slots of a sequential set, generations of n refused or given up'),
  })
  .meta({ id: 'ImagesResponse' });
export type ImagesResponse = z.input<typeof imagesResponseSchema>;

export const openAIErrorSchema = z
  .object({
    error: z.object({ message: z.string(), type: z.string(), param: z.string().nullable(), code: z.string() }),
  })
  .meta({ id: 'OpenAIError' });
export type OpenAIError = z.input<typeof openAIErrorSchema>;

/** The 202 answer (and GET /v1/jobs/{id} while running). */
export const jobObjectSchema = z
  .object({
    id: z.string(),
    object: z.literal('relay.job'),
    status: z.enum(['queued', 'running', 'completed', 'failed', 'cancelled']),
    created: z.number().int(),
    links: z.object({ self: z.string() }),
    position: z.number().int().optional().describe('While queued: jobs that will start before this one, as the schedule stands'),
    estimated_start: z
      .number()
      .int()
      .optional()
      .describe('While queued: when it should start (Unix seconds), from the pace jobs finished at lately'),
    cancel_requested: z
      .boolean()
      .optional()
      .describe('Answering a cancel of a running job: no further upstream call begins; what is in flight ends and is charged as delivered'),
  })
  .meta({ id: 'JobObject' });
export type JobObject = z.input<typeof jobObjectSchema>;

/** An entry of GET /v1/models, OpenAI's Model object. */
export const openAIModelSchema = z
  .object({
    id: z.string(),
    object: z.literal('model'),
    created: z.number().int().describe('Unix seconds: the release date the model id carries (YYMMDD suffix), else 0'),
    owned_by: z.string(),
    voices: z
      .array(z.string())
      .optional()
      .describe("Speech models: the model's voices (OpenAI's voice names are also taken, through the relay's table)"),
  })
  .meta({ id: 'OpenAIModel' });
export type OpenAIModel = z.input<typeof openAIModelSchema>;

export const openAIModelListSchema = z
  .object({ object: z.literal('list'), data: z.array(openAIModelSchema) })
  .meta({ id: 'OpenAIModelList' });
export type OpenAIModelList = z.input<typeof openAIModelListSchema>;
