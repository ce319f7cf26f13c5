import { z } from 'zod';
import { adminTokenEnv, envBool, envInt, envRedisUrl, envString, envUrl, parseEnv, type Env } from '@relay/core';

/** Only what the launcher itself decides; everything else passes through to the apps. */
export const embeddedEnvSchema = z
  .object({
    HOST: envString().default('127.0.0.1'),
    PORT: envInt(1, 65535).default(8080),
    /** Unset: redis://127.0.0.1:6379, reused when something answers there, else started here; Sentinel's or a cluster's: used as given. */
    REDIS_URL: envRedisUrl().optional(),
    /** The apps' key prefix. Unset: this data folder's own (redis-prefix.ts), so relays sharing a Redis keep apart. */
    REDIS_PREFIX: envString().optional(),
    /** Start a redis-server of its own on a free port (data in RELAY_DATA_DIR/redis), whatever answers on 6379. */
    RELAY_OWN_REDIS: envBool().default(false),
    S3_ENDPOINT: envUrl().optional(),
    EMBEDDED_S3_PORT: envInt(1, 65535).default(4568),
    ARK_BASE_URL: envUrl().optional(),
    GEMINI_BASE_URL: envUrl().optional(),
    SIM_PORT: envInt(1, 65535).default(4010),
    /** The demo's upstream takes this long per call, so the queue and the wait are visible. */
    SIM_LATENCY_MS: envInt().default(1_500),
    RELAY_DATA_DIR: envString().default('.data'),
    /** Unset: the one kept in the data folder (data-dir.ts). At least 32 characters, as the api takes it. */
    ADMIN_TOKEN: adminTokenEnv(),
    CHANNEL_SECRET: envString().optional(),
  })
  .superRefine((env, ctx) => {
    if (env.RELAY_OWN_REDIS && env.REDIS_URL)
      ctx.addIssue({
        code: 'custom',
        path: ['RELAY_OWN_REDIS'],
        message: 'RELAY_OWN_REDIS=1 starts a Redis of its own: unset REDIS_URL, or unset RELAY_OWN_REDIS to use the Redis at REDIS_URL',
      });
  });

export type EmbeddedConfig = z.output<typeof embeddedEnvSchema>;
export const loadEmbeddedConfig = (env: Env = process.env) => parseEnv(embeddedEnvSchema, env);

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
