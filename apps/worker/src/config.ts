import { z } from 'zod';
import { catalogEnv, envInt, logEnv, parseEnv, redisEnv, s3Env, shutdownEnv, type Env } from '@relay/core';

const MiB = 1024 * 1024;

export const workerEnvSchema = z.object({
  /** Jobs one worker process runs at once per queue. */
  IMAGES_CONCURRENCY: envInt(1, 1_000).default(8),
  SPEECH_CONCURRENCY: envInt(1, 1_000).default(8),
  /** Pause after an upstream 429 that names no delay (Ark sends no Retry-After). */
  UPSTREAM_RATE_LIMIT_DELAY_MS: envInt(0).default(2_000),
  /** Upper bound on any delay an upstream asks for. */
  UPSTREAM_RATE_LIMIT_MAX_DELAY_MS: envInt(0).default(60_000),
  /** Largest result file the relay copies into the store. */
  RESULT_MAX_BYTES: envInt(1_024).default(50 * MiB),
  RESULT_DOWNLOAD_TIMEOUT_MS: envInt(1_000).default(60_000),
  ...redisEnv,
  ...s3Env,
  ...catalogEnv,
  ...logEnv,
  ...shutdownEnv,
});

export type WorkerConfig = z.output<typeof workerEnvSchema>;

export const loadWorkerConfig = (env: Env = process.env) => parseEnv(workerEnvSchema, env);
