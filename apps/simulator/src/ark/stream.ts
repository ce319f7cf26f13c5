import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Response } from 'express';
import type { SimContext } from '../context.js';
import type { ShapeFault, StreamFault } from '../faults.js';
import { renderImage, type RenderSpec } from '../render/encode.js';
import { reshape, type AnswerShape } from './answer-shape.js';
import { messageFor, requestIdSuffix } from './errors.js';
import type { ImageSet } from './image-set.js';

/** What changes a stream: the mid-stream fault, and the faults on how it looks. */
export interface StreamFaults {
  fault?: StreamFault;
  shape?: AnswerShape;
  /** An `image_generation.partial_image` preview before each finished image. */
  previews?: Extract<ShapeFault, { type: 'previews' }>;
  /** The Content-Type the SSE body goes out under. */
  mislabel?: Extract<ShapeFault, { type: 'mislabel' }>;
}

/** A small JPEG of what the image will be: at most 64 px on its long side. */
function preview(spec: RenderSpec): string {
  const scale = 64 / Math.max(spec.width, spec.height);
  const width = Math.max(1, Math.round(spec.width * scale));
  const height = Math.max(1, Math.round(spec.height * scale));
  return renderImage({ width, height, format: 'jpeg', watermark: false, hue: spec.hue }).toString('base64');
}

/**
 * Ark's `stream: true` answer (image-generation-streaming-responses): one SSE event per
 * finished image, `image_generation.partial_succeeded` {type, model, created, image_index,
 * url | b64_json, size} or `image_generation.partial_failed` {type, model, created,
 * image_index, error}, then `image_generation.completed` {type, model, created, usage} and
 * `data: [DONE]`. `event:` repeats the JSON's `type`; the JSON is one line per `data:`.
 * A content refusal fails its image and the set goes on; an internal error fails its image and
 * ends the set (the vendor's SDK samples stop reading at a partial_failed InternalServiceError);
 * usage counts delivered images only. The status line and headers go out with the first
 * image, as the vendor's do (about 27 s in on 5.0-lite), not before. With the `previews` fault,
 * an `image_generation.partial_image` {image_index, partial_image_index, b64_json} precedes each
 * finished image, as the vendor's client sample reads them.
 */
export async function streamImageSet(ctx: SimContext, res: Response, modelId: string, set: ImageSet, faults: StreamFaults = {}) {
  const { config, stats } = ctx;
  const { shape, previews, mislabel } = faults;
  let fault = faults.fault;
  const requestId = String(res.getHeader('x-request-id') ?? '');
  const gone = new AbortController();
  res.once('close', () => gone.abort());
  const created = () => Math.floor(Date.now() / 1000);

  const write = async (text: string) => {
    if (!res.headersSent) {
      res.status(200).set({ 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
      // a mislabelled stream goes out under the label as given (express would add a charset)
      if (mislabel) res.setHeader('content-type', mislabel.contentType);
    }
    // a multi-MB b64_json event waits for the socket to take it, like any large answer
    if (!res.write(text)) await once(res, 'drain', { signal: gone.signal });
  };
  const send = (type: string, fields: Record<string, unknown>) =>
    write(`event: ${type}\ndata: ${JSON.stringify(reshape({ type, model: modelId, created: created(), ...fields }, shape))}\n\n`);

  /** Plays the stream fault due after `events` image events; true when it ended the stream. */
  const breaks = async (events: number): Promise<boolean> => {
    if (!fault || events < fault.after) return false;
    if (fault.type === 'stream-hold') {
      fault = undefined; // held once; the set then goes on as it would have
      await ctx.faults.hold();
      return false;
    }
    if (fault.type === 'stream-drop') {
      res.socket?.destroy();
      stats.streamEnded('dropped');
      return true;
    }
    const error = { code: fault.code, message: `${messageFor(fault.code)}${requestIdSuffix(requestId)}` };
    await write(`event: error\ndata: ${JSON.stringify({ error })}\n\n`);
    res.end();
    stats.streamEnded('failed');
    return true;
  };

  stats.streamOpened();
  let delivered = 0;
  let events = 0;
  try {
    for (let index = 0; index < set.count; index++) {
      await sleep(index === 0 ? config.SIM_LATENCY_MS : config.SIM_IMAGE_SPACING_MS, undefined, { signal: gone.signal });
      if (await breaks(events)) return;
      const slot = set.slot(index);
      events += 1;
      if ('image' in slot) {
        const { output_format: _format, ...image } = slot.image; // the documented events name no output_format
        if (previews)
          await send('image_generation.partial_image', { image_index: index, partial_image_index: 0, b64_json: preview(slot.spec) });
        await send('image_generation.partial_succeeded', { image_index: index, ...image });
        delivered += 1;
        stats.recordImages(1);
        continue;
      }
      await send('image_generation.partial_failed', { image_index: index, error: slot.error });
      if (slot.stops) break;
    }
    if (await breaks(Number.POSITIVE_INFINITY)) return;
    await send('image_generation.completed', { ...(set.tools && { tools: set.tools }), usage: set.usage(delivered) });
    res.end('data: [DONE]\n\n');
    stats.streamEnded('completed');
  } catch (error) {
    if (!gone.signal.aborted) throw error;
    stats.streamEnded('abandoned');
  }
}
