import { z } from 'zod';
import { envBool, envInt, envString, envUrl } from './env.js';

export const redisEnv = {
  REDIS_URL: envUrl().default('redis://127.0.0.1:6379'),
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
};

export const logEnv = {
  LOG_LEVEL: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ),
};

/** Path of the JSON model/upstream/price catalog; unset means the built-in default. */
export const catalogEnv = {
  RELAY_CONFIG: envString().optional(),
};

/** Hosts (`host:port`, or `*`) the relay may fetch or forward although they resolve to private addresses. */
export const urlPolicyEnv = {
  URL_ALLOWLIST: envString().optional(),
};

export const shutdownEnv = {
  SHUTDOWN_GRACE_MS: envInt(0, 600_000).default(25_000),
};
