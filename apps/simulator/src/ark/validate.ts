import { findArkModel, resolveKeyword, type ArkModel } from './models.js';

export interface ArkRejection {
  status: number;
  code: string;
  param: string;
  message: string;
}

export interface ArkRequest {
  model: ArkModel;
  modelId: string;
  prompt: string;
  images: string[];
  /** Concrete WxH, or 'adaptive' (resolved from the input image later). */
  size: string;
  sequential: boolean;
  maxImages: number;
  responseFormat: 'url' | 'b64_json';
  outputFormat: 'jpeg' | 'png';
  watermark: boolean;
  seed: number;
  stream: boolean;
}

const bad = (param: string, message: string, code = `InvalidParameter`): ArkRejection => ({
  status: 400,
  code,
  param,
  message,
});

function checkSize(model: ArkModel, raw: unknown, prompt: string): string | ArkRejection {
  if (raw === undefined) return model.defaultSize;
  if (typeof raw !== 'string') return bad('size', 'The parameter `size` specified in the request is not valid.');
  if (model.keywords.includes(raw)) return model.adaptiveOnly ? 'adaptive' : resolveKeyword(raw, prompt);
  if (model.adaptiveOnly) return bad('size', `The parameter \`size\` only supports adaptive for model ${model.id}.`);
  const match = /^(\d+)x(\d+)$/.exec(raw);
  if (!match) return bad('size', `The parameter \`size\` specified in the request is not valid: ${raw}.`);
  const w = Number(match[1]);
  const h = Number(match[2]);
  if (w * h < model.minPixels || w * h > model.maxPixels) {
    return bad(
      'size',
      `The parameter \`size\` specified in the request is not valid: total pixels must be within [${model.minPixels}, ${model.maxPixels}].`,
    );
  }
  if (model.checkAspect && (16 * w < h || w > 16 * h)) {
    return bad('size', 'The parameter `size` specified in the request is not valid: aspect ratio must be within [1/16, 16].');
  }
  return raw;
}

function checkImages(model: ArkModel, raw: unknown): string[] | ArkRejection {
  const list = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  if (list.some((entry) => typeof entry !== 'string'))
    return bad('image', 'The parameter `image` must be a string or an array of strings.');
  for (const entry of list as string[]) {
    if (entry.length === 0) return bad('image', 'The image url is empty.', 'InvalidImageURL.EmptyURL');
    const data = /^data:image\/([^;]+);base64,(.*)$/s.exec(entry);
    if (entry.startsWith('data:') && (!data || data[1] !== data[1]?.toLowerCase() || !data[2])) {
      return bad(
        'image',
        'The base64 image is invalid: the format must be lower case and the data non-empty.',
        'InvalidImageURL.InvalidFormat',
      );
    }
  }
  if (list.length > model.maxImages) {
    return bad(
      'image',
      model.maxImages === 0
        ? `The model ${model.id} does not support image input.`
        : `The number of images cannot exceed ${model.maxImages}.`,
    );
  }
  if (list.length < model.minImages)
    return bad('image', `The model ${model.id} requires ${model.minImages} input image.`, 'MissingParameter');
  return list as string[];
}

/** Checks a request the way the upstream does, before anything is generated. */
export function validateArkRequest(body: Record<string, unknown>): ArkRequest | ArkRejection {
  if (typeof body.model !== 'string' || body.model === '') return bad('model', 'The parameter `model` is required.', 'MissingParameter');
  const model = findArkModel(body.model);
  if (!model) {
    return {
      status: 404,
      code: 'InvalidEndpointOrModel.NotFound',
      param: 'model',
      message: `The model or endpoint ${body.model} does not exist or you do not have access to it.`,
    };
  }
  if (typeof body.prompt !== 'string' || body.prompt === '')
    return bad('prompt', 'The parameter `prompt` is required.', 'MissingParameter');
  const images = checkImages(model, body.image);
  if (!Array.isArray(images)) return images;
  const size = checkSize(model, body.size, body.prompt);
  if (typeof size !== 'string') return size;
  if (body.guidance_scale !== undefined) {
    const g = body.guidance_scale;
    if (!model.guidance) return bad('guidance_scale', `The parameter \`guidance_scale\` is not supported by model ${model.id}.`);
    if (typeof g !== 'number' || g < 1 || g > 10) return bad('guidance_scale', 'The parameter `guidance_scale` must be within [1, 10].');
  }
  if (body.output_format !== undefined) {
    if (!model.outputFormat) return bad('output_format', `The parameter \`output_format\` is not supported by model ${model.id}.`);
    if (body.output_format !== 'jpeg' && body.output_format !== 'png')
      return bad('output_format', 'The parameter `output_format` must be jpeg or png.');
  }
  const options = body.optimize_prompt_options as { mode?: unknown } | undefined;
  if (options?.mode === 'fast' && !model.fastPromptMode) {
    return bad('optimize_prompt_options.mode', `The mode fast is not supported by model ${model.id}.`);
  }
  const sequential = body.sequential_image_generation ?? 'disabled';
  if (sequential !== 'auto' && sequential !== 'disabled')
    return bad('sequential_image_generation', 'The parameter `sequential_image_generation` must be auto or disabled.');
  if ((sequential === 'auto' || body.stream === true) && !model.sequential) {
    return bad(sequential === 'auto' ? 'sequential_image_generation' : 'stream', `The parameter is not supported by model ${model.id}.`);
  }
  const maxImages = (body.sequential_image_generation_options as { max_images?: unknown } | undefined)?.max_images ?? 15;
  if (typeof maxImages !== 'number' || !Number.isInteger(maxImages) || maxImages < 1 || maxImages > 15) {
    return bad('sequential_image_generation_options.max_images', 'The parameter `max_images` must be within [1, 15].');
  }
  if (sequential === 'auto' && images.length + maxImages > 15) {
    return bad('sequential_image_generation_options.max_images', 'The number of reference images plus max_images cannot exceed 15.');
  }
  const responseFormat = body.response_format ?? 'url';
  if (responseFormat !== 'url' && responseFormat !== 'b64_json')
    return bad('response_format', 'The parameter `response_format` must be url or b64_json.');
  const seed = body.seed ?? -1;
  if (typeof seed !== 'number' || !Number.isInteger(seed) || seed < -1 || seed > 2147483647)
    return bad('seed', 'The parameter `seed` must be within [-1, 2147483647].');
  if (body.watermark !== undefined && typeof body.watermark !== 'boolean')
    return bad('watermark', 'The parameter `watermark` must be a boolean.');
  return {
    model,
    modelId: body.model,
    prompt: body.prompt,
    images,
    size,
    sequential: sequential === 'auto',
    maxImages,
    responseFormat,
    outputFormat: body.output_format === 'png' ? 'png' : 'jpeg',
    watermark: body.watermark !== false,
    seed,
    stream: body.stream === true,
  };
}
