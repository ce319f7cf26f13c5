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
  webhookRetryEnv,
  tracingEnv,
  urlPolicyEnv,
  type Env,
} from '@relay/core';

const MiB = 1024 * 1024;

export const apiEnvSchema = z.object({
  HOST: envString().default('127.0.0.1'),
  PORT: envInt(0, 65535).default(8080),
  /** Base of the links the relay hands out (/files/...); defaults to the request's own host. */
  PUBLIC_URL: envUrl().optional(),
  /** Trust X-Forwarded-* from a reverse proxy (Express "trust proxy"). */
  TRUST_PROXY: envBool().default(false),
  /** Enables /admin; unset means the admin API answers 404. At least 32 characters (openssl rand -hex 32). */
  ADMIN_TOKEN: adminTokenEnv(),
  /** Two inline images at the 10 MiB cap fit (base64 adds a third); larger sets go as URLs. Parsing is
   * synchronous: this bounds how long one body can hold the event loop (~50 ms at 32 MiB). */
  BODY_LIMIT_BYTES: envInt(1024).default(32 * MiB),
  INPUT_IMAGE_MAX_BYTES: envInt(1024).default(10 * MiB),
  /** Requests per minute per key unless the key has its own limit (0 = unlimited). */
  RATE_LIMIT_PER_MINUTE: envInt(0).default(600),
  /** GET /v1/jobs/{id} reads per minute, as a multiple of the key's request limit (its own bucket). */
  JOB_READ_RATE_MULTIPLIER: envInt(1, 1_000).default(10),
  /** Memory for finished answers kept to serve repeated GET /v1/jobs/{id} reads without rebuilding them. */
  ANSWER_CACHE_BYTES: envInt(0).default(64 * MiB),
  /** How long a request waits for its job before answering 202 with a job link. */
  WAIT_TIMEOUT_MS: envInt(0).default(90_000),
  /** The most a caller may ask for with `Prefer: wait=N`. */
  MAX_WAIT_MS: envInt(0).default(300_000),
  /**
   * How often a waiting request looks at its job's state itself: a worker that dies between
   * finishing a job and telling its waiter leaves that wait to this look, not to its whole budget.
   */
  WAIT_RECHECK_MS: envInt(100).default(30_000),
  /** How long an Idempotency-Key is remembered. */
  IDEMPOTENCY_TTL_SECONDS: envInt(60).default(86_400),
  JOB_ATTEMPTS: envInt(1, 20).default(4),
  JOB_BACKOFF_MS: envInt(0).default(1_000),
  /** How long finished jobs and their results stay fetchable. */
  JOB_KEEP_SECONDS: envInt(60).default(86_400),
  /** `redirect`: 302 to a presigned store URL; `proxy`: the relay streams the file itself. */
  FILES_MODE: z.preprocess((v) => (v === '' ? undefined : v), z.enum(['redirect', 'proxy']).default('redirect')),
  FILE_LINK_TTL_SECONDS: envInt(10, 7 * 86_400).default(300),
  /** The largest batch input file (POST /v1/files), and the most lines it may hold (OpenAI's limits). */
  BATCH_FILE_MAX_BYTES: envInt(1).default(200 * MiB),
  BATCH_FILE_MAX_LINES: envInt(1).default(50_000),
  /** How long a batch may run before it expires with what it finished (OpenAI's "24h"; shorter for tests). */
  BATCH_COMPLETION_WINDOW_SECONDS: envInt(1).default(86_400),
  /** Seals the keys of channels added through the admin API (workers open them with the same secret). */
  CHANNEL_SECRET: envString().optional(),
  /** The built console (index.html and assets/); by default dist/console beside the bundle, or apps/console/dist. */
  CONSOLE_DIR: envString().optional(),
  /** The upstream simulator's address: channels whose base URL is on it are shown as simulated (npm start and the compose simulator profile). */
  SIMULATOR_URL: envUrl().optional(),
  /** npm start's demo-key.json: its key fills the console playground's key field for a signed-in operator. */
  DEMO_KEY_FILE: envString().optional(),
  /** How often each api process adds its per-minute request statistics to Redis (the console's traffic chart). */
  STATS_FLUSH_MS: envInt(100, 60_000).default(5_000),
  ...redisEnv,
  ...s3Env,
  ...catalogEnv,
  ...logEnv,
  ...shutdownEnv,
  ...webhookRetryEnv,
  ...tracingEnv,
  ...urlPolicyEnv,
  ...placeholderEnv,
});

export type ApiConfig = z.output<typeof apiEnvSchema>;

export const loadApiConfig = (env: Env = process.env) =>
  parseEnv(
    apiEnvSchema.superRefine(refusePlaceholders(['ADMIN_TOKEN', 'S3_SECRET_ACCESS_KEY', 'CHANNEL_SECRET'])).superRefine(requireHashTag),
    env,
  );
