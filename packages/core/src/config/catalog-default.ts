/**
 * Built-in catalog: each public model id of the SPEC mapped to the vendor's own model id
 * (BytePlus ModelArk naming), with prices in micro-units (1e-6 of the account currency).
 * Override the whole thing with RELAY_CONFIG=/path/to/catalog.json.
 */
/** Gemini's 30 prebuilt TTS voices (ai.google.dev speech-generation#voices). */
export const GEMINI_VOICES = [
  'Zephyr',
  'Puck',
  'Charon',
  'Kore',
  'Fenrir',
  'Leda',
  'Orus',
  'Aoede',
  'Callirrhoe',
  'Autonoe',
  'Enceladus',
  'Iapetus',
  'Umbriel',
  'Algieba',
  'Despina',
  'Erinome',
  'Algenib',
  'Rasalgethi',
  'Laomedeia',
  'Achernar',
  'Alnilam',
  'Schedar',
  'Gacrux',
  'Pulcherrima',
  'Achird',
  'Zubenelgenubi',
  'Vindemiatrix',
  'Sadachbia',
  'Sadaltager',
  'Sulafat',
];

const generationFamily = {
  upstream: 'ark',
  inputImages: { min: 0, max: 14 },
  seed: false,
  guidanceScale: null,
  sequential: true,
  outputFormat: false,
  promptModes: ['standard'] as Array<'standard' | 'fast'>,
  stream: true,
};

export const defaultCatalog = {
  upstreams: {
    ark: {
      protocol: 'ark',
      baseUrl: 'https://ark.ap-southeast.bytepluses.com/api/v3',
      baseUrlEnv: 'ARK_BASE_URL',
      apiKeyEnv: 'ARK_API_KEY',
      timeoutMs: 180_000,
    },
    gemini: {
      protocol: 'gemini',
      baseUrl: 'https://generativelanguage.googleapis.com',
      baseUrlEnv: 'GEMINI_BASE_URL',
      apiKeyEnv: 'GEMINI_API_KEY',
      timeoutMs: 300_000,
    },
  },
  imageModels: {
    'vendor-gen-3-0-t2i-250415': {
      upstream: 'ark',
      upstreamModel: 'seedream-3-0-t2i-250415',
      inputImages: { min: 0, max: 0 },
      seed: true,
      guidanceScale: 2.5,
      sequential: false,
      outputFormat: false,
      upstreamSize: { keywords: [], maxPixels: 2048 * 2048 },
      price: 30_000,
    },
    'vendor-edit-3-0-i2i-250628': {
      upstream: 'ark',
      upstreamModel: 'seededit-3-0-i2i-250628',
      inputImages: { min: 1, max: 1 },
      seed: true,
      guidanceScale: 5.5,
      sequential: false,
      outputFormat: false,
      upstreamSize: 'adaptive',
      price: 30_000,
    },
    'vendor-gen-5-0-260128': {
      ...generationFamily,
      upstreamModel: 'seedream-5-0-260128',
      outputFormat: true,
      webSearch: true,
      // ByteDance publishes no web search price; $0.0069 a request is a reseller's (evolink.ai, 2026): set your own
      webSearchPrice: 6_900,
      upstreamSize: { keywords: ['2K', '3K'], maxPixels: 10_404_496 },
      price: 35_000,
    },
    'vendor-gen-5-0-pro-260628': {
      ...generationFamily,
      upstreamModel: 'dola-seedream-5-0-pro-260628',
      inputImages: { min: 0, max: 10 },
      outputFormat: true,
      defaultOutputFormat: 'png' as const,
      background: true,
      // the vendor makes a transparent background only from an input image (ModelArk's 5.0 pro page)
      transparentNeedsImage: true,
      // a base image plus at most 16 layers, from exactly one input image (ModelArk's 5.0 pro page)
      maxLayers: 16,
      stream: false,
      // the vendor's sizes are 1K, 1.5K and 2K: the SPEC's sizes shrink into its 2K tier
      upstreamSize: { keywords: ['2K'], maxPixels: 2048 * 2048 },
      // $0.09 above 2.36 MP, which every size the SPEC allows is
      price: 90_000,
    },
    'vendor-gen-5-5-261028': {
      ...generationFamily,
      upstreamModel: 'seedream-5-5-261028',
      inputImages: { min: 0, max: 10 },
      sequential: false,
      stream: false,
      outputFormat: true,
      defaultOutputFormat: 'png' as const,
      background: true,
      upstreamSize: { keywords: ['2K'], maxPixels: 2048 * 2048 },
      price: 35_000,
    },
    'vendor-gen-4-5-251128': {
      ...generationFamily,
      upstreamModel: 'seedream-4-5-251128',
      upstreamSize: { keywords: ['2K'], maxPixels: 16_777_216 },
      price: 40_000,
    },
    'vendor-gen-4-0-250828': {
      ...generationFamily,
      upstreamModel: 'seedream-4-0-250828',
      promptModes: ['standard', 'fast'] as Array<'standard' | 'fast'>,
      upstreamSize: { keywords: ['2K'], maxPixels: 16_777_216 },
      price: 30_000,
    },
  },
  speechModels: {
    'vendor-2.5-flash-preview-tts': {
      upstream: 'gemini',
      upstreamModel: 'gemini-2.5-flash-preview-tts',
      price: { inputPerMillion: 500_000, outputPerMillion: 10_000_000 },
      maxInputChars: 32_000,
      maxOutputTokens: 16_384,
      voices: GEMINI_VOICES,
      defaultVoice: 'Kore',
      // Google's TTS previews close once their GA successors are out (3.8, GA 2026-09-22, per its
      // changelog). The shutdown dates found are third parties' and disagree (2026-11-17,
      // 2026-12-18), so no date is set: the vendor's first 404 for the preview moves the id on
      retirement: { successor: 'gemini-3.8-flash-tts', since: '2026-09-22' },
    },
    // the GA models (ai.google.dev, 2026-09-22), at their launch prices per million tokens: text
    // $0.50, audio $9 (Flash) and $6 (Flash-Lite), as third parties quote Google's pricing page
    // (LiteLLM, Vercel's AI Gateway); both read text verbatim and take style as speechMetadata
    'vendor-3.8-flash-tts': {
      upstream: 'gemini',
      upstreamModel: 'gemini-3.8-flash-tts',
      // OpenAI's speech names (tts-1, ...) land on the GA model, not on the preview that closes
      openaiDefault: true,
      price: { inputPerMillion: 500_000, outputPerMillion: 9_000_000 },
      maxInputChars: 32_000,
      maxOutputTokens: 16_384,
      voices: GEMINI_VOICES,
      defaultVoice: 'Kore',
    },
    'vendor-3.8-flash-lite-tts': {
      upstream: 'gemini',
      upstreamModel: 'gemini-3.8-flash-lite-tts',
      price: { inputPerMillion: 500_000, outputPerMillion: 6_000_000 },
      maxInputChars: 32_000,
      maxOutputTokens: 16_384,
      voices: GEMINI_VOICES,
      defaultVoice: 'Kore',
    },
  },
};
