import { z } from 'zod';
import {
  adminTokenEnv,
  catalogEnv,
  envBool,
  envInt,
  envString,
  envUrl,
  logEnv,
  parseEnv,
  placeholderEnv,
  refusePlaceholders,
  requireHashTag,
  redisEnv,
  s3Env,
  shutdownEnv,
  tracingEnv,
  urlPolicyEnv,
  loadCatalog,
  type ApiTuning,
  type Catalog,
  type Env,
  type WebhookTuning,
} from '@relay/core';

export const apiEnvSchema = z.object({
  HOST: envString().default('127.0.0.1'),
  PORT: envInt(0, 65535).default(8080),
  /** Base of the links the relay hands out (/files/...); defaults to the request's own host. */
  PUBLIC_URL: envUrl().optional(),
  /** Trust X-Forwarded-* from a reverse proxy (Express "trust proxy"). */
  TRUST_PROXY: envBool().default(false),
  /** Enables /admin; unset means the admin API answers 404. At least 32 characters (openssl rand -hex 32). */
  ADMIN_TOKEN: adminTokenEnv(),
  /** How long a request waits for its job before answering 202 with a job link: below what a proxy in front allows. */
  WAIT_TIMEOUT_MS: envInt(0).default(90_000),
  /** `redirect`: 302 to a presigned store URL; `proxy`: the relay streams the file itself (a store clients cannot reach). */
  FILES_MODE: z.preprocess((v) => (v === '' ? undefined : v), z.enum(['redirect', 'proxy']).default('redirect')),
  /** Seals the keys of channels added through the admin API (workers open them with the same secret). */
  CHANNEL_SECRET: envString().optional(),
  ...redisEnv,
  ...s3Env,
  ...catalogEnv,
  ...logEnv,
  ...shutdownEnv,
  ...tracingEnv,
  ...urlPolicyEnv,
  ...placeholderEnv,
});

/** The api's whole configuration: its variables, and the config file's knobs (`tuning.api`, `tuning.webhooks`) and `console`. */
export type ApiConfig = z.output<typeof apiEnvSchema> & { tuning: ApiTuning; webhooks: WebhookTuning; console: Catalog['console'] };

export function loadApiConfig(env: Env = process.env): ApiConfig {
  const vars = parseEnv(
    apiEnvSchema.superRefine(refusePlaceholders(['ADMIN_TOKEN', 'S3_SECRET_ACCESS_KEY', 'CHANNEL_SECRET'])).superRefine(requireHashTag),
    env,
  );
  const file = loadCatalog(env);
  return { ...vars, tuning: file.tuning.api, webhooks: file.tuning.webhooks, console: file.console };
}
