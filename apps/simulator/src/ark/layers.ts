import type { ArkRequest } from './validate.js';

/** A layer as the vendor describes it beside its image (the volcengine SDK's Image). */
export interface LayerInfo {
  z_index: number;
  bounding_box: { absolute: number[]; normalized: number[] };
  name: string;
  description: string;
  width: number;
  height: number;
}

const NAMES = ['background', 'subject', 'shadow', 'text', 'foreground'];

/** How many layers the image splits into: the prompt's "N layers", else 3, at most the model's. */
export function layerCount(request: ArkRequest): number {
  const asked = /\b(\d{1,2})\s+layers?\b/i.exec(request.prompt);
  return Math.max(1, Math.min(asked ? Number(asked[1]) : 3, request.model.maxLayers));
}

/**
 * Layer `z` (1 is the lowest) of a `count`-layer split of a width x height image: a half-size box
 * stepping down the diagonal. Boxes are [x1, y1, x2, y2]; normalized in thousandths, as integers.
 */
export function layerInfo(z: number, count: number, width: number, height: number): LayerInfo {
  const w = Math.round(width / 2);
  const h = Math.round(height / 2);
  const x = Math.round(((z - 1) * (width - w)) / Math.max(1, count - 1));
  const y = Math.round(((z - 1) * (height - h)) / Math.max(1, count - 1));
  const permille = (v: number, of: number) => Math.round((v * 1000) / of);
  const name = NAMES[(z - 1) % NAMES.length]!;
  return {
    z_index: z,
    bounding_box: {
      absolute: [x, y, x + w, y + h],
      normalized: [permille(x, width), permille(y, height), permille(x + w, width), permille(y + h, height)],
    },
    name,
    description: `the ${name} of the picture`,
    width: w,
    height: h,
  };
}
