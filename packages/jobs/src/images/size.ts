/** The SPEC's size rules (method 1 keywords, method 2 WIDTHxHEIGHT), shared by API and worker. */
export const SIZE_KEYWORDS = ['2K', '3K'] as const;
export type SizeKeyword = (typeof SIZE_KEYWORDS)[number];
export const DEFAULT_SIZE = '2048x2048';
export const MIN_PIXELS = 3_686_400;
export const MAX_PIXELS = 10_404_496;

/** The 1:1 preset of each keyword tier, used where an upstream lacks the keyword itself. */
export const KEYWORD_SQUARE: Record<SizeKeyword, string> = { '2K': '2048x2048', '3K': '3072x3072' };

export type ParsedSize = { kind: 'keyword'; keyword: SizeKeyword } | { kind: 'pixels'; width: number; height: number };

const PIXELS = /^(\d{1,6})x(\d{1,6})$/;

/** Parses a size and checks the SPEC's ranges; returns an error sentence on failure. */
export function parseSize(size: string): ParsedSize | string {
  if ((SIZE_KEYWORDS as readonly string[]).includes(size)) return { kind: 'keyword', keyword: size as SizeKeyword };
  const match = PIXELS.exec(size);
  if (!match) {
    return `size must be a keyword (${SIZE_KEYWORDS.join(', ')}) or WIDTHxHEIGHT in pixels such as 2048x2048, not both; got "${size}"`;
  }
  const width = Number(match[1]);
  const height = Number(match[2]);
  const pixels = width * height;
  if (pixels < MIN_PIXELS || pixels > MAX_PIXELS) {
    return `size ${size} has ${pixels} pixels; total pixels must be within [${MIN_PIXELS}, ${MAX_PIXELS}]`;
  }
  // width/height within [1/16, 16], compared in integers to stay exact at the edges
  if (16 * width < height || width > 16 * height) {
    return `size ${size} has aspect ratio ${(width / height).toFixed(4)}; width/height must be within [1/16, 16]`;
  }
  return { kind: 'pixels', width, height };
}
