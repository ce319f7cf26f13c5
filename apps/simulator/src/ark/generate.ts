import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Request, Response } from 'express';
import { imageDimensions } from '@relay/core';
import type { SimContext } from '../context.js';
import type { CallSeen } from '../stats.js';
import { playRequestFault } from '../faults.js';
import { reshape } from './answer-shape.js';
import { accountIdFor, DEFAULT_CODES, messageFor, sendArkError } from './errors.js';
import { planImageSet, setSize } from './image-set.js';
import { streamImageSet } from './stream.js';
import { validateArkRequest, type ArkRequest } from './validate.js';

async function inputBytes(image: string): Promise<Buffer> {
  const data = /^data:image\/[^;]+;base64,(.*)$/s.exec(image);
  if (data) return Buffer.from(data[1]!, 'base64');
  const res = await fetch(image, { signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`status ${res.status}`);
  return Buffer.from(await res.arrayBuffer());
}

/**
 * Reads every input as the upstream does (URLs downloaded), their hashes kept for the call log;
 * SeedEdit's `adaptive` size follows the first one.
 */
async function resolveInputs(request: ArkRequest, res: Response): Promise<{ size: string } | { error: string }> {
  const read: Buffer[] = [];
  for (const image of request.images) {
    try {
      read.push(await inputBytes(image));
    } catch (error) {
      return { error: `Failed to download the image from the url: ${(error as Error).message}.` };
    }
  }
  (res.locals.seen as CallSeen).inputs = read.map((bytes) => createHash('sha256').update(bytes).digest('hex'));
  if (request.size !== 'adaptive') return { size: request.size };
  const dims = read[0] && imageDimensions(read[0]);
  return { size: dims ? `${dims.width}x${dims.height}` : '1024x1024' };
}

export function createGenerateHandler(ctx: SimContext) {
  const { config, faults, stats } = ctx;
  return async (req: Request, res: Response) => {
    stats.requests.images += 1;
    const fault = await playRequestFault(faults, 'images', req);
    if (fault === 'gone') return;
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (fault?.type === 'error') {
      const code = fault.code ?? DEFAULT_CODES[fault.status] ?? 'InternalServiceError';
      const key = /^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1] ?? '';
      const model = typeof body.model === 'string' ? body.model : '';
      return sendArkError(res, fault.status, code, messageFor(code, { model, account: accountIdFor(key) }));
    }
    // validation errors are plain JSON even when `stream` is true, as the vendor's are
    const request = validateArkRequest(body, { streamUnsupported: config.SIM_STREAM_UNSUPPORTED });
    if ('status' in request) return sendArkError(res, request.status, request.code, request.message, request.param);
    res.locals.seen = { model: request.modelId } satisfies CallSeen;
    if (config.SIM_MAX_IPM > 0 && stats.imagesLastMinute() + setSize(request) > config.SIM_MAX_IPM) {
      return sendArkError(res, 429, 'ModelAccountIpmRateLimitExceeded', messageFor('ModelAccountIpmRateLimitExceeded'));
    }
    const inputs = await resolveInputs(request, res);
    if ('error' in inputs) return sendArkError(res, 400, 'InvalidParameter', inputs.error, 'image');
    // faults on how the answer looks are taken by an answer they apply to
    const shape = faults.takeShapeFault('answer-shape', 'images');
    const link = request.responseFormat === 'url' ? faults.takeShapeFault('link', 'images') : undefined;
    const set = planImageSet(
      ctx,
      request,
      inputs.size,
      String(res.getHeader('x-request-id')),
      link && { mode: link.serve, hops: link.hops, contentType: link.contentType },
    );
    if (request.stream) {
      return streamImageSet(ctx, res, request.modelId, set, {
        fault: faults.takeStreamFault(),
        shape,
        previews: faults.takeShapeFault('previews', 'images'),
        mislabel: faults.takeShapeFault('mislabel', 'images'),
      });
    }

    await sleep(config.SIM_LATENCY_MS + config.SIM_IMAGE_SPACING_MS * (set.count - 1));
    const data: unknown[] = [];
    let delivered = 0;
    for (let index = 0; index < set.count; index++) {
      const slot = set.slot(index);
      if ('image' in slot) delivered += 1;
      data.push('image' in slot ? slot.image : { error: slot.error });
      if ('stops' in slot && slot.stops) break;
    }
    stats.recordImages(delivered);
    const answer = {
      model: request.modelId,
      created: Math.floor(Date.now() / 1000),
      data,
      ...(set.tools && { tools: set.tools }),
      usage: set.usage(delivered),
    };
    res.json(reshape(answer, shape));
  };
}
