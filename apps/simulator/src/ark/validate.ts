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
  /** An SSE answer; false for a model without streaming when `streamUnsupported` is 'ignore'. */
  stream: boolean;
  promptMode: 'standard' | 'fast';
  /** `tools: [{type: "web_search"}]` on a model that has the search. */
  webSearch: boolean;
  /** `background: transparent`: a PNG with alpha. */
  transparent: boolean;
  /** `layer_decomposition: true`: the input image as a base image and its layers. */
  layers: boolean;
}

export interface ValidationOptions {
  /** What a `stream: true` on a model that cannot stream gets: a 400, or a plain JSON answer. */
  streamUnsupported: 'refuse' | 'ignore';
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

/** `optimize_prompt_options: {mode}`: standard (the default) everywhere, fast only where the model has it. */
function checkPromptMode(model: ArkModel, raw: unknown): 'standard' | 'fast' | ArkRejection {
  if (raw === undefined) return 'standard';
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return bad('optimize_prompt_options', 'The parameter `optimize_prompt_options` must be an object.');
  const mode = (raw as { mode?: unknown }).mode ?? 'standard';
  if (mode !== 'standard' && mode !== 'fast')
    return bad('optimize_prompt_options.mode', 'The parameter `optimize_prompt_options.mode` must be standard or fast.');
  if (mode === 'fast' && !model.fastPromptMode) {
    return bad('optimize_prompt_options.mode', `The mode fast is not supported by model ${model.id}.`);
  }
  return mode;
}

/** `layer_decomposition`: a boolean, on the models that split images, from exactly one input image. */
function checkLayers(model: ArkModel, raw: unknown, images: number): boolean | ArkRejection {
  if (raw === undefined || raw === false) return false;
  if (raw !== true) return bad('layer_decomposition', 'The parameter `layer_decomposition` must be a boolean.');
  if (model.maxLayers === 0)
    return bad('layer_decomposition', `The parameter \`layer_decomposition\` is not supported by model ${model.id}.`);
  if (images !== 1) return bad('layer_decomposition', 'The parameter `layer_decomposition` requires exactly one input image.');
  return true;
}

/** `tools`: the web search only, on the models that have it. */
function checkTools(model: ArkModel, raw: unknown): boolean | ArkRejection {
  if (raw === undefined) return false;
  const valid =
    Array.isArray(raw) && raw.every((t) => typeof t === 'object' && t !== null && (t as { type?: unknown }).type === 'web_search');
  if (!valid) return bad('tools', 'The parameter `tools` must be an array of tools of type web_search.');
  if (raw.length > 0 && !model.webSearch) return bad('tools', `The parameter \`tools\` is not supported by model ${model.id}.`);
  return raw.length > 0;
}

const BACKGROUNDS = ['auto', 'transparent', 'opaque'];

/**
 * `background` where the model has it. Transparency is a PNG's (refused with jpeg), never with
 * layers, and on 5.0 pro only from an input image (the 5.0 pro and 5.5 docs as copied by relays).
 */
function checkBackground(model: ArkModel, body: Record<string, unknown>, format: string, images: number): boolean | ArkRejection {
  const raw = body.background;
  if (raw === undefined) return false;
  if (!model.background) return bad('background', `The parameter \`background\` is not supported by model ${model.id}.`);
  if (typeof raw !== 'string' || !BACKGROUNDS.includes(raw))
    return bad('background', 'The parameter `background` must be auto, transparent or opaque.');
  if (raw !== 'transparent') return false;
  if (format === 'jpeg') return bad('background', 'The parameter `background` transparent requires output_format png.');
  if (body.layer_decomposition === true) return bad('background', 'The parameter `background` cannot be used with layer_decomposition.');
  if (model.transparentNeedsImage && images === 0)
    return bad('background', `The parameter \`background\` transparent requires an input image for model ${model.id}.`);
  return true;
}

/**
 * `max_images` in [1, 15], default 15; references + generated images <= 15. A given
 * max_images that leaves no room is refused; the default shrinks to what is left, as the
 * vendor's "one reference + text gives at most 14 images" says.
 */
function checkMaxImages(raw: unknown, references: number): number | ArkRejection {
  const given = (raw as { max_images?: unknown } | undefined)?.max_images;
  if (given === undefined) return Math.max(1, 15 - references);
  if (typeof given !== 'number' || !Number.isInteger(given) || given < 1 || given > 15) {
    return bad('sequential_image_generation_options.max_images', 'The parameter `max_images` must be within [1, 15].');
  }
  if (references + given > 15) {
    return bad('sequential_image_generation_options.max_images', 'The number of reference images plus max_images cannot exceed 15.');
  }
  return given;
}

/** Checks a request the way the upstream does, before anything is generated. */
export function validateArkRequest(body: Record<string, unknown>, options: ValidationOptions): ArkRequest | ArkRejection {
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
  const outputFormat = body.output_format === 'png' || body.output_format === 'jpeg' ? body.output_format : model.defaultFormat;
  const transparent = checkBackground(model, body, outputFormat, images.length);
  if (typeof transparent !== 'boolean') return transparent;
  const mode = checkPromptMode(model, body.optimize_prompt_options);
  if (typeof mode !== 'string') return mode;
  const webSearch = checkTools(model, body.tools);
  if (typeof webSearch !== 'boolean') return webSearch;
  const layers = checkLayers(model, body.layer_decomposition, images.length);
  if (typeof layers !== 'boolean') return layers;
  const sequential = body.sequential_image_generation ?? 'disabled';
  if (sequential !== 'auto' && sequential !== 'disabled')
    return bad('sequential_image_generation', 'The parameter `sequential_image_generation` must be auto or disabled.');
  if (sequential === 'auto' && !model.sequential) {
    return bad('sequential_image_generation', `The parameter \`sequential_image_generation\` is not supported by model ${model.id}.`);
  }
  const maxImages = checkMaxImages(body.sequential_image_generation_options, sequential === 'auto' ? images.length : 0);
  if (typeof maxImages !== 'number') return maxImages;
  if (body.stream !== undefined && typeof body.stream !== 'boolean') return bad('stream', 'The parameter `stream` must be a boolean.');
  // whether the vendor refuses or ignores `stream` on a model without it is not documented: refused by default
  if (body.stream === true && !model.stream && options.streamUnsupported === 'refuse') {
    return bad('stream', `The parameter \`stream\` is not supported by model ${model.id}.`);
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
    outputFormat,
    watermark: body.watermark !== false,
    seed,
    stream: body.stream === true && model.stream,
    promptMode: mode,
    webSearch,
    transparent,
    layers,
  };
}
