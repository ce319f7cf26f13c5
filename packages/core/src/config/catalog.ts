import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError, type Env } from './env.js';
import { defaultCatalog } from './catalog-default.js';
import { ownValue } from '../own.js';
import { queueLimitsSchema, tuningSchema } from './tuning.js';
import { CAPABILITIES, QUEUE_NAMES, VENDOR_NAMES, VENDORS, type Capability, type QueueName } from '../capabilities.js';
import type { CapabilityDeclaration } from '../capability/declaration.js';

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

/**
 * A capability's catalog section: its models by public id (none when the file names none), held to
 * the rules its declaration states across them.
 */
function sectionOf(capability: CapabilityDeclaration) {
  return z
    .record(z.string(), capability.model)
    .default({})
    .superRefine((models, ctx) =>
      capability.check?.(models, (path, message) => ctx.addIssue({ code: 'custom', path: [...path], message })),
    );
}
type Sections = { [Q in QueueName as Capability<Q>['models']]: z.ZodDefault<z.ZodRecord<z.ZodString, Capability<Q>['model']>> };

/** Each capability's section, under the name its declaration gives it (`imageModels`, ...), typed by its model's schema. */
const modelSections = Object.fromEntries(QUEUE_NAMES.map((q) => [CAPABILITIES[q].models, sectionOf(CAPABILITIES[q])])) as Sections;

/**
 * The relay's config file: its catalog (upstreams, models, prices), each capability's upstream
 * limits (`queues`, keyed by capability: the worker refuses a name it does not serve) and the
 * internal knobs (`tuning`). A section left out is the built-in one, so a file that only tunes
 * need not copy the catalog.
 */
export const catalogSchema = z
  .strictObject({
    upstreams: z.record(z.string(), upstreamSchema),
    ...modelSections,
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
  });

export type Catalog = z.output<typeof catalogSchema>;
export type UpstreamConfig = Catalog['upstreams'][string];
export type { ImageModel, UpstreamSize } from '../capability/images.js';
export type { SpeechModel } from '../capability/speech.js';
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
  // a capability the built-in catalog has no models for (yet) keeps its section's own default: none
  const builtIn: Readonly<Record<string, unknown>> = defaultCatalog;
  const sections = QUEUE_NAMES.map((q) => CAPABILITIES[q].models).filter((section) => Object.hasOwn(builtIn, section));
  return { upstreams: defaultCatalog.upstreams, ...Object.fromEntries(sections.map((section) => [section, builtIn[section]])), ...raw };
}

/** The upstream's effective base URL and key, env overrides applied. */
export function resolveUpstream(upstream: UpstreamConfig, env: Env = process.env) {
  const baseUrl = (upstream.baseUrlEnv && env[upstream.baseUrlEnv]) || upstream.baseUrl;
  return { ...upstream, baseUrl: baseUrl.replace(/\/+$/, ''), apiKey: env[upstream.apiKeyEnv] ?? '' };
}
