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

/** The SPEC's recommended sizes per keyword tier and aspect ratio: what an error suggests instead. */
export const RECOMMENDED_SIZES: ReadonlyArray<{ tier: SizeKeyword; ratio: string; size: string }> = [
  ['2K', '1:1', '2048x2048'],
  ['2K', '4:3', '2304x1728'],
  ['2K', '3:4', '1728x2304'],
  ['2K', '16:9', '2848x1600'],
  ['2K', '9:16', '1600x2848'],
  ['2K', '3:2', '2496x1664'],
  ['2K', '2:3', '1664x2496'],
  ['2K', '21:9', '3136x1344'],
  ['3K', '1:1', '3072x3072'],
  ['3K', '4:3', '3456x2592'],
  ['3K', '3:4', '2592x3456'],
  ['3K', '16:9', '4096x2304'],
  ['3K', '9:16', '2304x4096'],
  ['3K', '2:3', '2496x3744'],
  ['3K', '3:2', '3744x2496'],
  ['3K', '21:9', '4704x2016'],
].map(([tier, ratio, size]) => ({ tier: tier as SizeKeyword, ratio: ratio!, size: size! }));

/** The recommended size of the tier whose aspect ratio is nearest the one asked for (compared as logarithms: 2:1 and 1:2 are as far from 1:1). */
function nearestRecommended(width: number, height: number, tier: SizeKeyword) {
  const logRatio = (size: string) => {
    const [w, h] = size.split('x').map(Number);
    return Math.log(w! / h!);
  };
  const asked = Math.log(width / height);
  return RECOMMENDED_SIZES.filter((r) => r.tier === tier).reduce((best, r) =>
    Math.abs(logRatio(r.size) - asked) < Math.abs(logRatio(best.size) - asked) ? r : best,
  );
}

const suggest = (width: number, height: number, tier: SizeKeyword) => {
  const r = nearestRecommended(width, height, tier);
  return `try ${r.size} (the recommended ${r.tier} size for ${r.ratio}) or the keyword ${r.tier}`;
};

/** Why a size that is neither a keyword nor WIDTHxHEIGHT is refused, naming what was probably meant. */
function malformed(size: string): string {
  const keyword = SIZE_KEYWORDS.find((k) => k.toLowerCase() === size.trim().toLowerCase());
  if (keyword) return `size "${size}": the keywords are ${SIZE_KEYWORDS.join(' and ')}, in capitals; did you mean "${keyword}"?`;
  const pixels = /^\s*(\d{1,6})\s*[xX×*]\s*(\d{1,6})\s*$/.exec(size);
  if (pixels) return `size "${size}": write WIDTHxHEIGHT with a lower-case x and no spaces; did you mean "${pixels[1]}x${pixels[2]}"?`;
  const both = /[23]K/i.test(size) && /\d+x\d+/i.test(size);
  return `size must be a keyword (${SIZE_KEYWORDS.join(' or ')}) or WIDTHxHEIGHT in pixels such as ${DEFAULT_SIZE}${both ? ', not both' : ''}; got "${size}"`;
}

/** Parses a size and checks the SPEC's ranges; returns an error sentence on failure, with the nearest valid size. */
export function parseSize(size: string): ParsedSize | string {
  if ((SIZE_KEYWORDS as readonly string[]).includes(size)) return { kind: 'keyword', keyword: size as SizeKeyword };
  const match = PIXELS.exec(size);
  if (!match) return malformed(size);
  const width = Number(match[1]);
  const height = Number(match[2]);
  const pixels = width * height;
  // width/height within [1/16, 16], compared in integers to stay exact at the edges
  const ratioOk = 16 * width >= height && width <= 16 * height;
  if (pixels < MIN_PIXELS || pixels > MAX_PIXELS) {
    return `size ${size} has ${pixels} pixels; total pixels must be within [${MIN_PIXELS}, ${MAX_PIXELS}]: ${suggest(width, height, pixels < MIN_PIXELS ? '2K' : '3K')}`;
  }
  if (!ratioOk) {
    return `size ${size} has aspect ratio ${(width / height).toFixed(4)}; width/height must be within [1/16, 16]: ${suggest(width, height, '2K')}`;
  }
  return { kind: 'pixels', width, height };
}
