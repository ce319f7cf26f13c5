/** The upstream's own per-model rules (UPSTREAM-APIS.md §1.2-1.4), not the relay's SPEC. */
export interface ArkModel {
  id: string;
  maxImages: number;
  minImages: number;
  keywords: string[];
  adaptiveOnly: boolean;
  minPixels: number;
  maxPixels: number;
  checkAspect: boolean;
  defaultSize: string;
  guidance: boolean;
  sequential: boolean;
  /** `stream: true` (SSE, one event per finished image): 4.0, 4.5 and 5.0-lite only. */
  stream: boolean;
  outputFormat: boolean;
  /** `optimize_prompt_options.mode: "fast"`: of the models here, 4.0 only (4.5 and 5.0-lite take standard). */
  fastPromptMode: boolean;
  /**
   * `tools: [{type: "web_search"}]`: 5.0-lite; its answer then echoes `tools` and counts
   * `usage.tool_usage.web_search` (the Volcengine stream docs' completed event).
   */
  webSearch: boolean;
  /** What the answer is without `output_format`: JPEG, or PNG on 5.0 pro and 5.5. */
  defaultFormat: 'jpeg' | 'png';
  /** `background: auto | transparent | opaque` (5.0 pro, 5.5); 5.0 pro makes transparency only from an input image. */
  background: boolean;
  transparentNeedsImage: boolean;
  /** `layer_decomposition: true`: the one input image as a base image plus at most this many layers (5.0 pro: 16). */
  maxLayers: number;
}

const generation = {
  minImages: 0,
  maxImages: 14,
  adaptiveOnly: false,
  checkAspect: true,
  defaultSize: '2048x2048',
  guidance: false,
  sequential: true,
  stream: true,
  outputFormat: false,
  fastPromptMode: false,
  webSearch: false,
  defaultFormat: 'jpeg' as 'jpeg' | 'png',
  background: false,
  transparentNeedsImage: false,
  maxLayers: 0,
};

/** 5.0 pro and 5.5: 1K/1.5K/2K, up to 10 references, PNG by default, `background`, no stream. */
const designer = {
  ...generation,
  maxImages: 10,
  keywords: ['1K', '1.5K', '2K'],
  minPixels: 1_048_576,
  maxPixels: 2048 * 2048,
  stream: false,
  outputFormat: true,
  defaultFormat: 'png' as const,
  background: true,
};

const MODELS: ArkModel[] = [
  {
    id: 'seedream-3-0-t2i-250415',
    ...generation,
    maxImages: 0,
    keywords: [],
    minPixels: 512 * 512,
    maxPixels: 2048 * 2048,
    checkAspect: false,
    defaultSize: '1024x1024',
    guidance: true,
    sequential: false,
    stream: false,
  },
  {
    id: 'seededit-3-0-i2i-250628',
    ...generation,
    minImages: 1,
    maxImages: 1,
    keywords: ['adaptive'],
    adaptiveOnly: true,
    minPixels: 0,
    maxPixels: 0,
    defaultSize: 'adaptive',
    guidance: true,
    sequential: false,
    stream: false,
  },
  {
    id: 'seedream-4-0-250828',
    ...generation,
    keywords: ['1K', '2K', '4K'],
    minPixels: 921_600,
    maxPixels: 16_777_216,
    fastPromptMode: true,
  },
  { id: 'seedream-4-5-251128', ...generation, keywords: ['2K', '4K'], minPixels: 3_686_400, maxPixels: 16_777_216 },
  {
    id: 'seedream-5-0-260128',
    ...generation,
    keywords: ['2K', '3K'],
    minPixels: 3_686_400,
    maxPixels: 10_404_496,
    outputFormat: true,
    webSearch: true,
  },
  { id: 'dola-seedream-5-0-pro-260628', ...designer, transparentNeedsImage: true, maxLayers: 16 },
  { id: 'seedream-5-5-261028', ...designer, sequential: false },
];

/**
 * Resolves BytePlus ids, Volcengine `doubao-` ids, the 5.0-lite alias, 5.5's `dola-` name, and
 * `ep-` endpoint ids.
 */
export function findArkModel(id: string): ArkModel | undefined {
  const bare = id
    .replace(/^doubao-/, '')
    .replace('seedream-5-0-lite-', 'seedream-5-0-')
    .replace('dola-seedream-5-5-', 'seedream-5-5-');
  if (/^ep-[\w-]+$/.test(id)) return MODELS.find((m) => m.id === 'seedream-5-0-260128');
  return MODELS.find((m) => m.id === bare);
}

/** Presets per keyword tier and aspect ratio; the model picks the ratio from the prompt. */
const PRESETS: Record<string, Record<string, string>> = {
  // no published preset table for 1.5K was found: its square stands for every ratio
  '1.5K': { '1:1': '1536x1536' },
  '1K': {
    '1:1': '1024x1024',
    '4:3': '1152x864',
    '3:4': '864x1152',
    '16:9': '1312x736',
    '9:16': '736x1312',
    '3:2': '1248x832',
    '2:3': '832x1248',
    '21:9': '1568x672',
  },
  '2K': {
    '1:1': '2048x2048',
    '4:3': '2304x1728',
    '3:4': '1728x2304',
    '16:9': '2848x1600',
    '9:16': '1600x2848',
    '3:2': '2496x1664',
    '2:3': '1664x2496',
    '21:9': '3136x1344',
  },
  '3K': {
    '1:1': '3072x3072',
    '4:3': '3456x2592',
    '3:4': '2592x3456',
    '16:9': '4096x2304',
    '9:16': '2304x4096',
    '3:2': '3744x2496',
    '2:3': '2496x3744',
    '21:9': '4704x2016',
  },
  '4K': {
    '1:1': '4096x4096',
    '4:3': '4704x3520',
    '3:4': '3520x4704',
    '16:9': '5504x3040',
    '9:16': '3040x5504',
    '3:2': '4992x3328',
    '2:3': '3328x4992',
    '21:9': '6240x2656',
  },
};

export function resolveKeyword(keyword: string, prompt: string): string {
  const tier = PRESETS[keyword] ?? PRESETS['2K']!;
  const ratio = /\b(21:9|16:9|9:16|4:3|3:4|3:2|2:3)\b/.exec(prompt)?.[1] ?? '1:1';
  return tier[ratio] ?? tier['1:1']!;
}
