import { AppError } from '@relay/core';
import { z } from 'zod';
import { imageRequestFields, MAX_INPUT_IMAGES } from './request.js';
import { refusedEditFields } from './refused-fields.js';

/** An edit sent as multipart/form-data: its text fields, and its images already streamed into the store. */
export interface ImageForm {
  fields: Record<string, string | string[]>;
  files: Array<{ key: string; mime: string; bytes: number; sha256: string }>;
}

/**
 * OpenAI's JSON edit body: the generations body with the images as `images: [{image_url}]` (the
 * SPEC's `image` is taken too). A file_id is refused: the relay stores no uploads to refer to.
 */
export const openAIEditFields = imageRequestFields.extend({
  images: z
    .array(
      z.strictObject(
        {
          image_url: z.string({ error: 'image_url must be a string' }).optional(),
          file_id: z.string().optional(),
        },
        { error: 'each entry of images must be an object with image_url' },
      ),
      { error: 'images must be an array of {image_url}' },
    )
    .min(1, 'images must not be empty')
    .max(MAX_INPUT_IMAGES, `images takes at most ${MAX_INPUT_IMAGES} input images`)
    .optional()
    .describe('The input images as URLs or data:image/<format>;base64 URIs (or send them as multipart files: image, image[])'),
  mask: z.unknown().optional(),
  ...refusedEditFields,
});
export type OpenAIEditBody = z.output<typeof openAIEditFields>;

/** The vendor has no masks: a `mask`, sent as a field or a file, is refused by name. */
export const maskRefused = () =>
  new AppError('invalid_request', 'mask is not supported: these models edit from the prompt and the images; describe the change instead', {
    param: 'mask',
  });

/** The body as the images API takes it: `images[].image_url` become `image`; a mask is refused. */
export function editAsImageRequest(body: OpenAIEditBody): z.input<typeof imageRequestFields> {
  const { images, mask, ...rest } = body;
  if (mask !== undefined) throw maskRefused();
  if (images && rest.image !== undefined)
    throw new AppError('invalid_request', 'send the images as images or as image, not both', { param: 'images' });
  const urls = images?.map((entry, i) => {
    if (entry.file_id !== undefined || entry.image_url === undefined) {
      throw new AppError('invalid_request', `images[${i}]: give image_url (file_id is not supported here)`, { param: `images[${i}]` });
    }
    return entry.image_url;
  });
  return urls ? { ...rest, image: urls } : rest;
}

/** Form fields the images API types as other than text. */
const NUMBERS = new Set(['n', 'seed', 'guidance_scale', 'partial_images', 'max_images', 'output_compression']);
const BOOLEANS = new Set(['watermark', 'stream', 'layer_decomposition']);
const OBJECTS = new Set(['sequential_image_generation_options', 'optimize_prompt_options', 'tools']);

function typed(name: string, value: string): unknown {
  if (NUMBERS.has(name)) return value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : value;
  if (BOOLEANS.has(name)) return value === 'true' ? true : value === 'false' ? false : value;
  if (OBJECTS.has(name)) {
    try {
      return JSON.parse(value) as unknown;
    } catch {
      return value;
    }
  }
  return value;
}

/**
 * A form's fields as the JSON body they stand for: numbers and booleans read as such, the
 * object fields as JSON (`sequential_image_generation_options={"max_images":3}`) or bracketed
 * (`sequential_image_generation_options[max_images]=3`). A field sent twice stays a list, which
 * the schema then refuses by name. Null-prototype objects: names are the client's.
 */
export function formBody(fields: ImageForm['fields']): Record<string, unknown> {
  const body = Object.create(null) as Record<string, unknown>;
  for (const [name, raw] of Object.entries(fields)) {
    const nested = /^(\w+)\[(\w+)\]$/.exec(name);
    if (nested && OBJECTS.has(nested[1]!) && typeof raw === 'string') {
      const [, parent = '', child = ''] = nested;
      const into = (body[parent] ??= Object.create(null)) as Record<string, unknown>;
      if (typeof into === 'object') into[child] = typed(child, raw);
      continue;
    }
    body[name] = Array.isArray(raw) ? raw : typed(name, raw);
  }
  return body;
}
