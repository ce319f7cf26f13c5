import { createHash } from 'node:crypto';
import { renderImage, type RenderSpec } from '../render/encode.js';
import type { SimContext } from '../context.js';
import type { ImageFault } from '../faults.js';
import { messageFor } from './errors.js';
import type { LinkServe } from './links.js';
import type { ArkRequest } from './validate.js';
import { layerCount, layerInfo } from './layers.js';

const hash = (text: string) => createHash('sha256').update(text).digest();

/** The model decides how many images a set holds; here the prompt's "N images" or a stable pick. */
export function setSize(request: ArkRequest): number {
  // layers: the base image first, then each layer
  if (request.layers) return 1 + layerCount(request);
  if (!request.sequential) return 1;
  const asked = /\b(\d{1,2})\s+(?:images|pictures|panels|frames)\b/i.exec(request.prompt);
  const count = asked ? Number(asked[1]) : 1 + (hash(request.prompt)[0]! % 4);
  return Math.max(1, Math.min(count, request.maxImages));
}

/** How many web searches the model runs for a prompt: its "N searches" (0 too: it may find none needed), else one. */
const searchesOf = (prompt: string) => Number(/\b(\d{1,2})\s+searche?s?\b/i.exec(prompt)?.[1] ?? 1);

/** One image of a set: its item (url or b64_json, size) and what it renders, or its failure. */
export type SetSlot =
  | { image: Record<string, unknown>; spec: RenderSpec }
  /** `stops`: an internal error ends the set there; a content refusal does not. */
  | { error: { code: string; message: string }; stops: boolean };

export interface ImageSet {
  /** The most images the set can hold (fewer when an internal error stops it). */
  count: number;
  slot(index: number): SetSlot;
  usage(delivered: number): ArkUsage;
  /** The tools the answer echoes (`[{type: "web_search"}]` when the request asked for the search). */
  tools?: Array<{ type: string }>;
}

export interface ArkUsage {
  generated_images: number;
  output_tokens: number;
  total_tokens: number;
  /** With the web search tool: the searches the model chose to make (the prompt's "N searches", else one). */
  tool_usage?: { web_search: number };
}

/**
 * The images one request makes, the same whether they are answered at once or streamed: the
 * per-image faults queued for it, and the usage the vendor bills (Σ W·H / 256 per delivered image).
 */
export function planImageSet(ctx: SimContext, request: ArkRequest, size: string, requestId: string, link?: LinkServe): ImageSet {
  const faults: ImageFault[] = ctx.faults.takeImageFaults();
  const [width, height] = size.split('x').map(Number) as [number, number];
  const hue = hash(request.prompt)[1]! % 8;
  return {
    count: setSize(request),
    slot(index) {
      const failure = faults.find((f) => f.index === index);
      if (failure) {
        return { error: { code: failure.code, message: messageFor(failure.code) }, stops: failure.code.startsWith('Internal') };
      }
      // a layer is a cut-out: a PNG with alpha the size of its box
      const layer = request.layers && index > 0 ? layerInfo(index, setSize(request) - 1, width, height) : undefined;
      const spec: RenderSpec = {
        width: layer?.width ?? width,
        height: layer?.height ?? height,
        format: layer ? 'png' : request.outputFormat,
        watermark: request.watermark,
        hue: layer ? (hue + index) % 8 : hue,
        ...(request.transparent || layer ? { alpha: true } : {}),
      };
      const image: Record<string, unknown> =
        request.responseFormat === 'b64_json'
          ? { b64_json: renderImage(spec).toString('base64') }
          : { url: ctx.links.sign(`${requestId}_${index}.${spec.format}`, spec, undefined, link) };
      image.size = layer ? `${layer.width}x${layer.height}` : size;
      if (request.model.outputFormat) image.output_format = spec.format;
      if (layer) {
        const { width: _w, height: _h, ...info } = layer;
        Object.assign(image, info);
      }
      if (request.model.background) image.background = request.transparent ? 'transparent' : 'opaque';
      return { image, spec };
    },
    usage(delivered) {
      // with layers, generated_images counts each layer too: how the vendor bills layers is not published
      const tokens = Math.round((delivered * width * height) / 256);
      const usage: ArkUsage = { generated_images: delivered, output_tokens: tokens, total_tokens: tokens };
      if (request.webSearch) usage.tool_usage = { web_search: searchesOf(request.prompt) };
      return usage;
    },
    ...(request.webSearch ? { tools: [{ type: 'web_search' }] } : {}),
  };
}
