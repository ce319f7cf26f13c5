import { crc32, deflateSync } from 'node:zlib';
import jpeg from 'jpeg-js';

export type ImageFormat = 'jpeg' | 'png';

export interface RenderSpec {
  width: number;
  height: number;
  format: ImageFormat;
  watermark: boolean;
  /** Tints the picture so different prompts give different files. */
  hue: number;
  /** A PNG with an alpha channel whose corners are transparent (the vendor's `background: transparent`). */
  alpha?: boolean;
}

/** RGB at (x, y): a diagonal gradient tinted by hue, with a pale block where the mark goes. */
function painter(spec: RenderSpec) {
  const markW = Math.max(8, Math.round(spec.width * 0.18));
  const markH = Math.max(4, Math.round(spec.height * 0.04));
  const r0 = (spec.hue * 7) % 256;
  const g0 = (spec.hue * 13) % 256;
  const b0 = (spec.hue * 29) % 256;
  return (x: number, y: number): [number, number, number] => {
    if (spec.watermark && x >= spec.width - markW - markH && y >= spec.height - 2 * markH && y < spec.height - markH) {
      return [235, 235, 235];
    }
    const t = (x / spec.width + y / spec.height) * 127;
    return [(r0 + t) & 255, (g0 + t / 2) & 255, (b0 + 255 - t) & 255];
  };
}

function encodeJpeg(spec: RenderSpec): Buffer {
  const paint = painter(spec);
  const data = Buffer.alloc(spec.width * spec.height * 4);
  for (let y = 0; y < spec.height; y++) {
    for (let x = 0; x < spec.width; x++) {
      const [r, g, b] = paint(x, y);
      const i = (y * spec.width + x) * 4;
      data[i] = r;
      data[i + 1] = g;
      data[i + 2] = b;
      data[i + 3] = 255;
    }
  }
  return jpeg.encode({ width: spec.width, height: spec.height, data }, 80).data;
}

function pngChunk(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), body])) >>> 0, 0);
  return Buffer.concat([head, body, crc]);
}

/** Inside the ellipse the picture fills: what stays opaque on a transparent background. */
const insideSubject = (spec: RenderSpec, x: number, y: number) => ((2 * x) / spec.width - 1) ** 2 + ((2 * y) / spec.height - 1) ** 2 <= 1;

function encodePng(spec: RenderSpec): Buffer {
  const paint = painter(spec);
  const channels = spec.alpha ? 4 : 3;
  const stride = spec.width * channels + 1;
  const raw = Buffer.alloc(stride * spec.height);
  for (let y = 0; y < spec.height; y++) {
    for (let x = 0; x < spec.width; x++) {
      const [r, g, b] = paint(x, y);
      const o = y * stride + 1 + x * channels;
      raw[o] = r;
      raw[o + 1] = g;
      raw[o + 2] = b;
      if (spec.alpha) raw[o + 3] = insideSubject(spec, x, y) ? 255 : 0;
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(spec.width, 0);
  header.writeUInt32BE(spec.height, 4);
  header.set([8, spec.alpha ? 6 : 2, 0, 0, 0], 8); // 8-bit RGB or RGBA, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(raw, { level: 3 })),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

const cache = new Map<string, Buffer>();
const CACHE_LIMIT = 64;

/** A real image file of exactly the requested size, cached per spec so repeated sizes stay fast. */
export function renderImage(spec: RenderSpec): Buffer {
  const key = `${spec.width}x${spec.height}.${spec.format}${spec.alpha ? 'a' : ''}.${spec.watermark ? 1 : 0}.${spec.hue}`;
  let file = cache.get(key);
  if (!file) {
    // JPEG has no alpha channel: a transparent background is always a PNG
    file = spec.format === 'png' ? encodePng(spec) : encodeJpeg(spec);
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
    cache.set(key, file);
  }
  return file;
}
