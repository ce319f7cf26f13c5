import type { UpstreamSize } from '@relay/core';
import { DEFAULT_SIZE, KEYWORD_SQUARE, parseSize } from '@relay/jobs';

/** Largest WIDTHxHEIGHT of the same aspect ratio within `maxPixels`, in multiples of 8. */
function fitWithin(width: number, height: number, maxPixels: number): string {
  if (width * height <= maxPixels) return `${width}x${height}`;
  const scale = Math.sqrt(maxPixels / (width * height));
  const down = (n: number) => Math.max(8, Math.floor((n * scale) / 8) * 8);
  return `${down(width)}x${down(height)}`;
}

/**
 * Maps a SPEC size (already validated) onto what the upstream model accepts: keywords it knows
 * pass through, others become their tier's 1:1 preset; sizes beyond the model's own cap shrink
 * to fit, keeping the ratio; `adaptive` models always get `adaptive` (their output follows the
 * input image). The answer's `size` reports what was actually made.
 */
export function upstreamSize(size: string | undefined, rule: UpstreamSize): string {
  if (rule === 'adaptive') return 'adaptive';
  const parsed = parseSize(size ?? DEFAULT_SIZE);
  if (typeof parsed === 'string') throw new Error(`size reached the worker unvalidated: ${parsed}`);
  if (parsed.kind === 'keyword') {
    if (rule.keywords.includes(parsed.keyword)) return parsed.keyword;
    const [w, h] = KEYWORD_SQUARE[parsed.keyword].split('x').map(Number) as [number, number];
    return fitWithin(w, h, rule.maxPixels);
  }
  return fitWithin(parsed.width, parsed.height, rule.maxPixels);
}
