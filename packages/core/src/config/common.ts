import { z } from 'zod';
import { envBool, envInt, envRedisUrl, envString, envUrl, unsetIfEmpty } from './env.js';

export const redisEnv = {
  REDIS_URL: envRedisUrl().default('redis://127.0.0.1:6379'),
  /** Behind Sentinel (REDIS_URL=redis+sentinel://...): the sentinels' own user and password (read where connections are made, core/redis-sentinel.ts). */
  REDIS_SENTINEL_USERNAME: envString().optional(),
  REDIS_SENTINEL_PASSWORD: envString().optional(),
  /** Prefix of every key the relay writes; wrap it in {braces} to keep one hash slot on Redis Cluster. */
  REDIS_PREFIX: envString().default('relay'),
};

export const s3Env = {
  /** Unset means AWS S3 itself (region endpoint, default credential chain). */
  S3_ENDPOINT: envUrl().optional(),
  /** Where clients can reach the store, for presigned links; defaults to S3_ENDPOINT. */
  S3_PUBLIC_ENDPOINT: envUrl().optional(),
  S3_REGION: envString().default('us-east-1'),
  S3_BUCKET: envString().default('relay'),
  S3_ACCESS_KEY_ID: envString().optional(),
  S3_SECRET_ACCESS_KEY: envString().optional(),
  S3_FORCE_PATH_STYLE: envBool().default(true),
  /** Create the bucket at start when it is missing (compose: its bundled store starts empty). */
  S3_CREATE_BUCKET: envBool().default(false),
};

/**
 * The shortest ADMIN_TOKEN taken: 32 characters (`openssl rand -hex 32` makes 64). The token opens
 * every account's money and keys; a short one is a guessable one.
 */
export const MIN_ADMIN_TOKEN_CHARS = 32;

/** Why a token is refused, or undefined when it is long enough: the api's and npm start's words alike. */
export function adminTokenTooShort(token: string): string | undefined {
  if (token.length >= MIN_ADMIN_TOKEN_CHARS) return undefined;
  return `must be at least ${MIN_ADMIN_TOKEN_CHARS} characters, and this one has ${token.length}: make one with openssl rand -hex 32`;
}

/** ADMIN_TOKEN: unset (no admin API), or a token of at least MIN_ADMIN_TOKEN_CHARS characters. */
export const adminTokenEnv = () =>
  envString()
    .superRefine((token, ctx) => {
      const refused = adminTokenTooShort(token);
      if (refused) ctx.addIssue({ code: 'custom', message: refused });
    })
    .optional();

export const logEnv = {
  LOG_LEVEL: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ),
};

/** The JSON model/upstream/price catalog, inline or as a file path; unset means the built-in default. */
export const catalogEnv = {
  RELAY_CONFIG: envString().optional(),
};

/** Hosts (`host:port`, or `*`) the relay may fetch or forward although they resolve to private addresses. */
export const urlPolicyEnv = {
  URL_ALLOWLIST: envString().optional(),
};

/**
 * OpenTelemetry's own variables, as far as the relay reads them (startTracing); the exporter
 * reads the rest of the standard set (headers, timeouts) itself. OTLP over HTTP only: gRPC is
 * refused at start rather than quietly sent another way.
 */
const otlpProtocol = z.preprocess(
  unsetIfEmpty,
  z.enum(['http/protobuf', 'http/json'], { error: 'must be http/protobuf or http/json (gRPC is not supported)' }).optional(),
);
export const tracingEnv = {
  OTEL_EXPORTER_OTLP_ENDPOINT: envString().optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: envString().optional(),
  OTEL_EXPORTER_OTLP_PROTOCOL: otlpProtocol,
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: otlpProtocol,
  OTEL_TRACES_EXPORTER: envString().optional(),
  OTEL_SDK_DISABLED: envString().optional(),
  OTEL_SERVICE_NAME: envString().optional(),
  OTEL_BSP_SCHEDULE_DELAY: envInt(1).optional(),
};

export const shutdownEnv = {
  SHUTDOWN_GRACE_MS: envInt(0, 600_000).default(25_000),
};

/**
 * The secrets `.env.example` ships are placeholders: a relay started with them would run with a
 * guessable admin token and store key. Compose hands its active profiles over, so trying the
 * relay against the bundled simulator needs no editing, while anything else refuses to start.
 */
export const placeholderEnv = {
  RELAY_COMPOSE_PROFILES: envString().optional(),
};

const PLACEHOLDER = /^change-?me/i;

/** A zod check refusing placeholder values of `names`, unless compose runs the simulator profile. */
export const refusePlaceholders = (names: string[]) => (env: Record<string, unknown>, ctx: z.RefinementCtx) => {
  const profiles = (typeof env.RELAY_COMPOSE_PROFILES === 'string' ? env.RELAY_COMPOSE_PROFILES : '').split(',').map((p) => p.trim());
  if (profiles.includes('simulator')) return;
  for (const name of names) {
    const value = env[name];
    if (typeof value === 'string' && PLACEHOLDER.test(value)) {
      ctx.addIssue({
        code: 'custom',
        path: [name],
        message: 'still the placeholder of .env.example: set a secret of your own (e.g. openssl rand -hex 32)',
      });
    }
  }
};
