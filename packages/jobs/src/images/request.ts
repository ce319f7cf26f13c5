import { z } from 'zod';
import { ownValue, type ImageModel } from '@relay/core';
import { parseInputImage } from './input-image.js';
import { generationsProblem, openAIImageFields } from './openai-fields.js';
import { checkLayerFields } from './layers.js';
import { checkOutputFields } from './output-fields.js';
import { refusedOpenAIFields, refusedVendorFields } from './refused-fields.js';
import { parseSize } from './size.js';
import { nearestModel } from '../nearest-model.js';

export const MAX_PROMPT_CHARS = 10_000;
export const MAX_IMAGES_LIMIT = 15;
/** The most input images any vendor model takes (Ark: 14 references). */
export const MAX_INPUT_IMAGES = 14;

/**
 * The public body of POST /v1/images/generations, as the SPEC describes it. Types are checked
 * here; which model takes which field is checked by `imageRequestSchema` below.
 */
export const imageRequestFields = z.strictObject({
  model: z.string({ error: 'model is required and must be a string' }).max(200, 'model must be at most 200 characters'),
  // the length is checked before anything walks the text
  prompt: z
    .string({ error: 'prompt is required and must be a string' })
    .max(MAX_PROMPT_CHARS, `prompt must be at most ${MAX_PROMPT_CHARS} characters`)
    .refine((p) => p.trim().length > 0, 'prompt must not be empty'),
  image: z
    .union([z.string(), z.array(z.string()).max(MAX_INPUT_IMAGES, `image takes at most ${MAX_INPUT_IMAGES} input images`)], {
      error: 'image must be a string or an array of strings',
    })
    .optional(),
  size: z.string({ error: 'size must be a string' }).max(32, 'size must be a keyword or WIDTHxHEIGHT').optional(),
  seed: z
    .number({ error: 'seed must be an integer' })
    .int('seed must be an integer')
    .min(-1, 'seed must be within [-1, 2147483647]')
    .max(2147483647, 'seed must be within [-1, 2147483647]')
    .optional(),
  sequential_image_generation: z
    .enum(['auto', 'disabled'], { error: 'sequential_image_generation must be "auto" or "disabled"' })
    .optional(),
  sequential_image_generation_options: z
    .strictObject(
      {
        max_images: z
          .number({ error: 'max_images must be an integer' })
          .int('max_images must be an integer')
          .min(1, 'max_images must be within [1, 15]')
          .max(MAX_IMAGES_LIMIT, 'max_images must be within [1, 15]')
          .optional(),
      },
      { error: 'sequential_image_generation_options must be an object' },
    )
    .optional(),
  guidance_scale: z
    .number({ error: 'guidance_scale must be a number' })
    .min(1, 'guidance_scale must be within [1, 10]')
    .max(10, 'guidance_scale must be within [1, 10]')
    .optional(),
  output_format: z
    .enum(['png', 'jpeg', 'webp'], { error: 'output_format must be "png", "jpeg" or "webp": these models make no gif or svg' })
    .nullable()
    .optional()
    .describe('The file format: made by the model where it can (its default otherwise), converted by the relay where it cannot'),
  output_compression: z
    .number({ error: 'output_compression must be an integer' })
    .int('output_compression must be an integer')
    .min(0, 'output_compression must be within [0, 100]')
    .max(100, 'output_compression must be within [0, 100]')
    .nullable()
    .optional()
    .describe("jpeg and webp: OpenAI's compression level, 100 (the default) the least compressed; the relay re-encodes the image at it"),
  background: z
    .enum(['auto', 'transparent', 'opaque'], { error: 'background must be "auto", "transparent" or "opaque"' })
    .nullable()
    .optional()
    .describe("transparent: a PNG with alpha, on the models that make one (the catalog's background); opaque and auto on every model"),
  tools: z
    .array(z.strictObject({ type: z.literal('web_search', { error: 'tools takes only {"type": "web_search"}' }) }), {
      error: 'tools must be an array of {"type": "web_search"}',
    })
    .max(1, 'tools takes the web search once')
    .optional()
    .describe(
      "The vendor's web search on the models that take it (the catalog's webSearch), charged per call that searched (webSearchPrice)",
    ),
  layer_decomposition: z
    .boolean({ error: 'layer_decomposition must be a boolean' })
    .nullable()
    .optional()
    .describe(
      "The input image split into layers, each delivered as an image with its z_index, bounding_box and name (the catalog's maxLayers)",
    ),
  response_format: z.enum(['url', 'b64_json'], { error: 'response_format must be "url" or "b64_json"' }).optional(),
  watermark: z.boolean({ error: 'watermark must be a boolean' }).optional(),
  optimize_prompt_options: z
    .strictObject(
      { mode: z.enum(['standard', 'fast'], { error: 'optimize_prompt_options.mode must be "standard" or "fast"' }) },
      { error: 'optimize_prompt_options must be an object with mode' },
    )
    .optional()
    .describe("The vendor's prompt optimisation: standard (default), or fast where the model takes it (4.0)"),
  stream: z
    .boolean({ error: 'stream must be a boolean' })
    .nullable()
    .optional()
    .describe('Send each image as it is made: image_generation.partial_image events, then image_generation.completed'),
  partial_images: z
    .number({ error: 'partial_images must be an integer' })
    .int('partial_images must be an integer')
    .min(0, 'partial_images must be within [0, 3]')
    .max(3, 'partial_images must be within [0, 3]')
    .nullable()
    .optional()
    .describe("Accepted as OpenAI's clients send it: these models send finished images, each one event"),
  ...openAIImageFields,
  ...refusedOpenAIFields,
  ...refusedVendorFields,
});

export type ImageRequest = z.output<typeof imageRequestFields>;

type Ctx = z.core.$RefinementCtx<ImageRequest>;

function refuse(ctx: Ctx, path: Array<string | number>, message: string) {
  ctx.addIssue({ code: 'custom', path, message });
}

/**
 * Counts first: a request with the wrong number of images is refused before any entry is read.
 * Images uploaded as files (an edit's form) are already in the store: only their count is judged.
 */
function checkImages(request: ImageRequest, model: ImageModel, ctx: Ctx, uploaded?: number) {
  const images =
    uploaded !== undefined
      ? Array.from({ length: uploaded }, () => 'uploaded')
      : request.image === undefined
        ? []
        : Array.isArray(request.image)
          ? request.image
          : [request.image];
  const { min, max } = model.inputImages;
  if (Array.isArray(request.image) && request.image.length === 0) {
    refuse(ctx, ['image'], 'image must not be an empty array; omit it instead');
    return undefined;
  }
  if (max === 0 && images.length > 0) {
    refuse(ctx, ['image'], `${request.model} is text-to-image only and does not take image`);
    return undefined;
  }
  if (images.length < min || images.length > max) {
    refuse(
      ctx,
      ['image'],
      min === max
        ? `${request.model} takes exactly ${min} input image, got ${images.length}`
        : `${request.model} takes between ${min} and ${max} input images, got ${images.length}`,
    );
    return undefined;
  }
  if (uploaded !== undefined) return images.length;
  for (const [index, entry] of images.entries()) {
    const parsed = parseInputImage(entry);
    if (typeof parsed === 'string') {
      refuse(ctx, Array.isArray(request.image) ? ['image', index] : ['image'], parsed);
      return undefined;
    }
  }
  return images.length;
}

/** The catalog's models that have a capability, named in a refusal so the client can switch. */
const takersIn = (models: Record<string, ImageModel>) => (which: (m: ImageModel) => boolean) =>
  Object.entries(models)
    .filter(([, m]) => which(m))
    .map(([id]) => id)
    .join(', ') || 'no model of this relay';

function checkModelFields(request: ImageRequest, model: ImageModel, models: Record<string, ImageModel>, ctx: Ctx) {
  const takers = takersIn(models);
  const only = (field: keyof ImageRequest, which: (m: ImageModel) => boolean) => {
    if (request[field] !== undefined && !which(model)) {
      refuse(ctx, [field], `${field} is only supported by ${takers(which)}; ${request.model} does not take it`);
    }
  };
  only('seed', (m) => m.seed);
  only('guidance_scale', (m) => m.guidanceScale !== null);
  only('sequential_image_generation', (m) => m.sequential);
  only('sequential_image_generation_options', (m) => m.sequential);
  if (request.tools?.length) only('tools', (m) => m.webSearch);
  const mode = request.optimize_prompt_options?.mode;
  if (mode !== undefined && !model.promptModes.includes(mode)) {
    refuse(
      ctx,
      ['optimize_prompt_options', 'mode'],
      model.promptModes.length
        ? `${request.model} takes optimize_prompt_options.mode ${model.promptModes.map((m) => `"${m}"`).join(' or ')}, not "${mode}"`
        : `${request.model} does not take optimize_prompt_options`,
    );
  }
}

/** "unknown model ...; did you mean ...?", then every model there is. */
export function unknownModel(asked: string, known: string[]): string {
  const meant = nearestModel(asked, known);
  return `unknown model "${asked}"; ${meant ? `did you mean "${meant}"? Available` : 'available'}: ${known.join(', ')}`;
}

/**
 * The full request schema for a catalog: SPEC types plus every per-model rule. `uploaded`: the
 * images came as files (their count is what the rules judge; `image` itself is then absent).
 */
export function imageRequestSchema(models: Record<string, ImageModel>, uploaded?: number) {
  return imageRequestFields.superRefine((request, ctx) => {
    const model = ownValue(models, request.model);
    if (!model) {
      refuse(ctx, ['model'], unknownModel(request.model, Object.keys(models)));
      return;
    }
    const imageCount = checkImages(request, model, ctx, uploaded) ?? 0;
    checkModelFields(request, model, models, ctx);
    checkOutputFields(request, model, imageCount, takersIn(models), ctx);
    checkLayerFields(request, model, imageCount, takersIn(models), ctx);
    if (request.size !== undefined) {
      const parsed = parseSize(request.size);
      if (typeof parsed === 'string') refuse(ctx, ['size'], parsed);
    }
    const maxImages = request.sequential_image_generation_options?.max_images;
    if (request.sequential_image_generation === 'auto' && maxImages !== undefined && imageCount + maxImages > MAX_IMAGES_LIMIT) {
      refuse(
        ctx,
        ['sequential_image_generation_options', 'max_images'],
        `input images plus max_images must not exceed ${MAX_IMAGES_LIMIT} (${imageCount} + ${maxImages})`,
      );
    }
    const tooMany = generationsProblem(request, maxImagesOf(request, imageCount));
    if (tooMany) refuse(ctx, ['n'], tooMany);
    // a stream is one upstream call delivering its images in order: n independent calls are not
    if (request.stream && (request.n ?? 1) > 1)
      refuse(ctx, ['n'], 'stream takes one generation (n 1); ask a set with sequential_image_generation');
  });
}

/** How many images a validated request may produce at most: the basis of its reservation. */
export function maxImagesOf(
  request: Pick<ImageRequest, 'sequential_image_generation' | 'sequential_image_generation_options'>,
  inputImages: number,
): number {
  if (request.sequential_image_generation !== 'auto') return 1;
  return request.sequential_image_generation_options?.max_images ?? MAX_IMAGES_LIMIT - inputImages;
}
