import { z } from 'zod';
import { envInt, envString, envUrl, parseEnv, type Env } from '@relay/core';

/** Only what the launcher itself decides; everything else passes through to the apps. */
export const embeddedEnvSchema = z.object({
  HOST: envString().default('127.0.0.1'),
  PORT: envInt(1, 65535).default(8080),
  REDIS_URL: envUrl().default('redis://127.0.0.1:6379'),
  S3_ENDPOINT: envUrl().optional(),
  EMBEDDED_S3_PORT: envInt(1, 65535).default(4568),
  ARK_BASE_URL: envUrl().optional(),
  GEMINI_BASE_URL: envUrl().optional(),
  SIM_PORT: envInt(1, 65535).default(4010),
  /** The demo's upstream takes this long per call, so the queue and the wait are visible. */
  SIM_LATENCY_MS: envInt().default(1_500),
  RELAY_DATA_DIR: envString().default('.data'),
  ADMIN_TOKEN: envString().optional(),
  CHANNEL_SECRET: envString().optional(),
});

export type EmbeddedConfig = z.output<typeof embeddedEnvSchema>;
export const loadEmbeddedConfig = (env: Env = process.env) => parseEnv(embeddedEnvSchema, env);
