import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Request, Response } from 'express';
import { imageDimensions } from '../render/dimensions.js';
import { renderImage, type RenderSpec } from '../render/encode.js';
import type { SimContext } from '../context.js';
import { playRequestFault } from '../faults.js';
import { DEFAULT_CODES, messageFor, sendArkError } from './errors.js';
import { validateArkRequest, type ArkRequest } from './validate.js';

const hash = (text: string) => createHash('sha256').update(text).digest();

/** The model decides how many images a set holds; here the prompt's "N images" or a stable pick. */
function setSize(request: ArkRequest): number {
  if (!request.sequential) return 1;
  const asked = /\b(\d{1,2})\s+(?:images|pictures|panels|frames)\b/i.exec(request.prompt);
  const count = asked ? Number(asked[1]) : 1 + (hash(request.prompt)[0]! % 4);
  return Math.max(1, Math.min(count, request.maxImages));
}

async function inputBytes(image: string): Promise<Buffer | undefined> {
  const data = /^data:image\/[^;]+;base64,(.*)$/s.exec(image);
  if (data) return Buffer.from(data[1]!, 'base64');
  const res = await fetch(image, { signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`status ${res.status}`);
  return Buffer.from(await res.arrayBuffer());
}

/** Downloads URL inputs as the upstream does; SeedEdit's `adaptive` size follows the first one. */
async function resolveInputs(request: ArkRequest): Promise<{ size: string } | { error: string }> {
  let first: Buffer | undefined;
  for (const image of request.images) {
    try {
      first ??= await inputBytes(image);
    } catch (error) {
      return { error: `Failed to download the image from the url: ${(error as Error).message}.` };
    }
  }
  if (request.size !== 'adaptive') return { size: request.size };
  const dims = first && imageDimensions(first);
  return { size: dims ? `${dims.width}x${dims.height}` : '1024x1024' };
}

export function createGenerateHandler(ctx: SimContext) {
  const { config, faults, stats, links } = ctx;
  return async (req: Request, res: Response) => {
    stats.requests.images += 1;
    const fault = await playRequestFault(faults, 'images', req);
    if (fault === 'gone') return;
    if (fault?.type === 'error') {
      const code = fault.code ?? DEFAULT_CODES[fault.status] ?? 'InternalServiceError';
      return sendArkError(res, fault.status, code, messageFor(code));
    }
    const body = (req.body ?? {}) as Record<string, unknown>;
    const request = validateArkRequest(body);
    if ('status' in request) return sendArkError(res, request.status, request.code, request.message, request.param);
    if (request.stream) return sendArkError(res, 400, 'InvalidParameter', 'The simulator does not implement stream.', 'stream');
    const count = setSize(request);
    if (config.SIM_MAX_IPM > 0 && stats.imagesLastMinute() + count > config.SIM_MAX_IPM) {
      return sendArkError(res, 429, 'ModelAccountIpmRateLimitExceeded', messageFor('ModelAccountIpmRateLimitExceeded'));
    }
    const inputs = await resolveInputs(request);
    if ('error' in inputs) return sendArkError(res, 400, 'InvalidParameter', inputs.error, 'image');
    const [width, height] = inputs.size.split('x').map(Number) as [number, number];
    await sleep(config.SIM_LATENCY_MS + config.SIM_IMAGE_SPACING_MS * (count - 1));

    const imageFaults = faults.takeImageFaults();
    const requestId = String(res.getHeader('x-request-id'));
    const hue = hash(request.prompt)[1]! % 8;
    const data: unknown[] = [];
    let delivered = 0;
    for (let index = 0; index < count; index++) {
      const failure = imageFaults.find((f) => f.index === index);
      if (failure) {
        data.push({ error: { code: failure.code, message: messageFor(failure.code) } });
        if (failure.code.startsWith('Internal')) break; // an internal error stops the set
        continue;
      }
      const spec: RenderSpec = { width, height, format: request.outputFormat, watermark: request.watermark, hue };
      const item: Record<string, unknown> =
        request.responseFormat === 'b64_json'
          ? { b64_json: renderImage(spec).toString('base64') }
          : { url: links.sign(`${requestId}_${index}.${spec.format}`, spec) };
      item.size = inputs.size;
      if (request.model.outputFormat) item.output_format = request.outputFormat;
      data.push(item);
      delivered += 1;
    }
    stats.recordImages(delivered);
    const outputTokens = Math.round((delivered * width * height) / 256);
    res.json({
      model: request.modelId,
      created: Math.floor(Date.now() / 1000),
      data,
      usage: { generated_images: delivered, output_tokens: outputTokens, total_tokens: outputTokens },
    });
  };
}
