import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError, type Env } from './env.js';
import { defaultCatalog } from './catalog-default.js';
import { ownValue } from '../own.js';
import { MAX_MICRO_UNITS } from '../money/money.js';
import { queueLimitsSchema, tuningSchema } from './tuning.js';
import { CAPABILITIES, VENDOR_NAMES, VENDORS } from '../capabilities.js';

/** A price in micro-units: an integer within the ceiling of every amount (money.ts). */
const price = () =>
  z
    .number()
    .int()
    .min(0)
    .max(MAX_MICRO_UNITS, `a price is at most ${MAX_MICRO_UNITS} micro-units (one billion units), the ceiling of every amount`);

const upstreamSchema = z.strictObject({
  /** The vendor protocol it speaks (capabilities.ts's VENDORS), which decides the capability it serves. */
  protocol: z.enum(VENDOR_NAMES),
  baseUrl: z.url(),
  /** Env var that overrides baseUrl, so pointing at another host needs no JSON edit. */
  baseUrlEnv: z.string().optional(),
  /** Env var holding the upstream key; keys never live in the JSON file. */
  apiKeyEnv: z.string(),
  timeoutMs: z.number().int().positive().default(180_000),
});

/** What the upstream model accepts as `size`; the relay maps the SPEC's sizes onto it. */
const upstreamSizeSchema = z.union([
  z.literal('adaptive'),
  z.strictObject({
    keywords: z.array(z.string()),
    maxPixels: z.number().int().positive(),
  }),
]);

const imageModelSchema = z.strictObject({
  upstream: z.string(),
  upstreamModel: z.string(),
  inputImages: z.strictObject({ min: z.number().int().min(0), max: z.number().int().min(0) }),
  seed: z.boolean(),
  /** Default guidance_scale; null when the model does not take the field. */
  guidanceScale: z.number().nullable(),
  sequential: z.boolean(),
  outputFormat: z.boolean(),
  /** What the relay asks for when a request names no output_format (5.0 pro and 5.5 make PNG by default). */
  defaultOutputFormat: z.enum(['jpeg', 'png']).default('jpeg'),
  /**
   * Whether the model takes the vendor's `background` (auto, transparent: a PNG with alpha, opaque).
   * `transparentNeedsImage`: transparency only when editing an input image (5.0 pro).
   */
  background: z.boolean().default(false),
  transparentNeedsImage: z.boolean().default(false),
  /**
   * The most layers the vendor splits an input image into (`layer_decomposition`; 0: the model does
   * not take it). Each layer is an image delivered beside the base one: what a request reserves.
   */
  maxLayers: z.number().int().min(0).default(0),
  /** Whether the model takes the vendor's web search tool (`tools: [{type: "web_search"}]`, 5.0 lite). */
  webSearch: z.boolean().default(false),
  /**
   * Micro-units per upstream call that searched (the vendor bills the search per request, apart from
   * the images, however many searches it ran): reserved per call asked to search, charged per call
   * whose answer counts a search (`usage.tool_usage.web_search`).
   */
  webSearchPrice: price().default(0),
  upstreamSize: upstreamSizeSchema,
  /** The modes of the vendor's optimize_prompt_options.mode the model takes (none: it takes no such field). */
  promptModes: z.array(z.enum(['standard', 'fast'])).default([]),
  /** Whether the vendor streams the model's images as they are made (Ark `stream: true`). */
  stream: z.boolean().default(false),
  /** Micro-units per delivered image. */
  price: price(),
});

const speechModelSchema = z.strictObject({
  upstream: z.string(),
  upstreamModel: z.string(),
  /** Micro-units per million input text tokens and per million output audio tokens. */
  price: z.strictObject({
    inputPerMillion: price(),
    outputPerMillion: price(),
  }),
  maxInputChars: z.number().int().positive().default(32_000),
  /** The model's output allowance in tokens: the reservation assumes all of it is used. */
  maxOutputTokens: z.number().int().positive().default(16_384),
  /** The input token limit the upstream states for the model; the model listings report it. */
  inputTokenLimit: z.number().int().positive().default(8_192),
  voices: z.array(z.string()).min(1),
  /**
   * OpenAI's voice names (what tools send by default to /v1/audio/speech) -> this model's voices.
   * Unset: the relay's table (packages/jobs/src/speech/openai-voices.ts), which names Gemini's voices.
   */
  openaiVoices: z.record(z.string(), z.string()).optional(),
  /**
   * The voice sent upstream when a request names none (a Gemini-dialect body with imageConfig
   * instead of speechConfig): Gemini 3.x TTS refuses a request without a voice. Default: the first of `voices`.
   */
  defaultVoice: z.string().optional(),
  /**
   * The model OpenAI's speech names mean (`tts-1`, `tts-1-hd`, `gpt-4o-mini-tts` and its dated
   * snapshots: what OpenAI's tools send by default). At most one is marked; none marked, the
   * catalog's first speech model.
   */
  openaiDefault: z.boolean().default(false),
  /**
   * The vendor's end of `upstreamModel` (a preview that closes): calls go to `successor` from the
   * vendor's first answer that it no longer serves the model (404), or from `sunset` (an ISO date,
   * midnight UTC, or a date-time) when one is set. The public id keeps answering; only the vendor
   * model behind it changes, and the worker logs it. A channel that maps the id to a vendor model
   * of its own is left as it is. Answers on the id say so (Deprecation, Sunset, and a Link to the
   * catalog's model on the successor, when there is one).
   */
  retirement: z
    .strictObject({
      sunset: z.union([z.iso.date(), z.iso.datetime({ offset: true })]).optional(),
      successor: z.string().min(1),
      /** When the vendor deprecated the model (its successor's GA): the date answers carry in `Deprecation`. */
      since: z.iso.date().optional(),
    })
    .optional(),
});

/**
 * The relay's config file: its catalog (upstreams, models, prices), each capability's upstream
 * limits (`queues`, keyed by capability: the worker refuses a name it does not serve) and the
 * internal knobs (`tuning`). A section left out is the built-in one, so a file that only tunes
 * need not copy the catalog.
 */
export const catalogSchema = z
  .strictObject({
    upstreams: z.record(z.string(), upstreamSchema),
    imageModels: z.record(z.string(), imageModelSchema),
    speechModels: z.record(z.string(), speechModelSchema),
    queues: z.record(z.string(), queueLimitsSchema).default({}),
    tuning: tuningSchema,
    /**
     * What npm start tells the console: the simulator's address (channels on it are shown as
     * simulated) and its demo-key.json (whose key the playground offers a signed-in operator).
     */
    console: z.strictObject({ simulatorUrl: z.url().optional(), demoKeyFile: z.string().optional() }).prefault({}),
  })
  .superRefine((catalog, ctx) => {
    // each capability's models are called through an upstream whose vendor serves that capability
    for (const capability of Object.values(CAPABILITIES)) {
      const models: Record<string, { upstream: string }> = catalog[capability.models];
      for (const [id, model] of Object.entries(models)) {
        const upstream = ownValue(catalog.upstreams, model.upstream);
        if (!upstream) {
          ctx.addIssue({ code: 'custom', path: [capability.models, id, 'upstream'], message: `unknown upstream "${model.upstream}"` });
        } else if (VENDORS[upstream.protocol].capability !== capability.id) {
          ctx.addIssue({
            code: 'custom',
            path: [capability.models, id, 'upstream'],
            message: `upstream "${model.upstream}" speaks ${upstream.protocol}, which serves ${VENDORS[upstream.protocol].capability}, not ${capability.id}`,
          });
        }
      }
    }
    const openaiDefaults = Object.entries(catalog.speechModels).filter(([, model]) => model.openaiDefault);
    if (openaiDefaults.length > 1) {
      ctx.addIssue({
        code: 'custom',
        path: ['speechModels', openaiDefaults[1]![0], 'openaiDefault'],
        message: `only one speech model may be OpenAI's default; ${openaiDefaults.map(([id]) => id).join(' and ')} both are`,
      });
    }
    for (const [id, model] of Object.entries(catalog.speechModels)) {
      if (model.defaultVoice !== undefined && !model.voices.includes(model.defaultVoice)) {
        ctx.addIssue({
          code: 'custom',
          path: ['speechModels', id, 'defaultVoice'],
          message: `"${model.defaultVoice}" is none of the model's voices`,
        });
      }
      for (const [name, voice] of Object.entries(model.openaiVoices ?? {})) {
        if (!model.voices.includes(voice)) {
          ctx.addIssue({
            code: 'custom',
            path: ['speechModels', id, 'openaiVoices', name],
            message: `"${voice}" is none of the model's voices`,
          });
        }
      }
    }
  });

export type Catalog = z.output<typeof catalogSchema>;
export type ImageModel = Catalog['imageModels'][string];
export type SpeechModel = Catalog['speechModels'][string];
export type UpstreamConfig = Catalog['upstreams'][string];
export type UpstreamSize = ImageModel['upstreamSize'];
export type CatalogInput = z.input<typeof catalogSchema>;

/**
 * Loads the catalog from RELAY_CONFIG or the built-in default. The value is the JSON itself when
 * it starts with `{` (an env var is all some platforms offer), otherwise a file path (compose
 * mounts ./config at /app/config).
 */
export function loadCatalog(env: Env = process.env): Catalog {
  const value = env.RELAY_CONFIG?.trim();
  let raw: unknown = defaultCatalog;
  if (value?.startsWith('{')) {
    try {
      raw = JSON.parse(value);
    } catch (error) {
      throw new ConfigError(`RELAY_CONFIG: the inline JSON does not parse: ${(error as Error).message}`);
    }
  } else if (value) {
    try {
      raw = JSON.parse(readFileSync(value, 'utf8'));
    } catch (error) {
      throw new ConfigError(`RELAY_CONFIG: cannot read ${value}: ${(error as Error).message}`);
    }
  }
  const parsed = catalogSchema.safeParse(withDefaultSections(raw));
  if (!parsed.success) {
    throw new ConfigError(`RELAY_CONFIG: ${z.prettifyError(parsed.error)}`);
  }
  return parsed.data;
}

/** A file's missing catalog sections are the built-in ones (one that only tunes need not copy the catalog). */
function withDefaultSections(raw: unknown): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
  const { upstreams, imageModels, speechModels } = defaultCatalog;
  return { upstreams, imageModels, speechModels, ...raw };
}

/** The upstream's effective base URL and key, env overrides applied. */
export function resolveUpstream(upstream: UpstreamConfig, env: Env = process.env) {
  const baseUrl = (upstream.baseUrlEnv && env[upstream.baseUrlEnv]) || upstream.baseUrl;
  return { ...upstream, baseUrl: baseUrl.replace(/\/+$/, ''), apiKey: env[upstream.apiKeyEnv] ?? '' };
}
