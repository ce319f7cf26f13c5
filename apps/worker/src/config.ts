import { z } from 'zod';
import {
  catalogEnv,
  envInt,
  envString,
  logEnv,
  parseEnv,
  placeholderEnv,
  redisEnv,
  refusePlaceholders,
  requireHashTag,
  s3Env,
  shutdownEnv,
  tracingEnv,
  urlPolicyEnv,
  ConfigError,
  loadCatalog,
  ownValue,
  queueLimitsSchema,
  type Catalog,
  type Env,
  type QueueLimits,
  type WebhookTuning,
  type WorkerTuning,
} from '@relay/core';
import { perQueue, QUEUE_NAMES, type QueueName } from '@relay/jobs';

export const workerEnvSchema = z.object({
  /**
   * Jobs one worker process runs at once, per capability. A job mostly waits (10-60 s on a real
   * upstream, then the copy), so a process runs hundreds; what the upstream takes at once is the
   * channels' and the config file's `queues` limits' business, across all workers.
   */
  WORKER_CONCURRENCY: envInt(1, 5_000).default(256),
  /** Opens the keys of channels added through the admin API (the api seals them with it). */
  CHANNEL_SECRET: envString().optional(),
  /** Where the worker's /metrics, /healthz and /readyz listen: the address, as the api's HOST, and the port (0 = any free one). */
  HOST: envString().default('127.0.0.1'),
  METRICS_PORT: envInt(0, 65535).default(9464),
  /** Days results are kept in the store (0 = for ever); relay links to older files answer 404. */
  RETENTION_DAYS: envInt(0, 36_500).default(0),
  ...tracingEnv,
  ...redisEnv,
  ...s3Env,
  ...catalogEnv,
  ...logEnv,
  ...shutdownEnv,
  ...urlPolicyEnv,
  ...placeholderEnv,
});

/**
 * The worker's whole configuration: its variables, the catalog, each capability's upstream limits
 * (the config file's `queues`, every capability given its own, defaults where the file names none)
 * and the knobs (`tuning.worker`, `tuning.webhooks`).
 */
export type WorkerConfig = z.output<typeof workerEnvSchema> & {
  catalog: Catalog;
  queues: Record<QueueName, QueueLimits>;
  tuning: WorkerTuning;
  webhooks: WebhookTuning;
};

export function loadWorkerConfig(env: Env = process.env): WorkerConfig {
  const vars = parseEnv(
    workerEnvSchema.superRefine(refusePlaceholders(['S3_SECRET_ACCESS_KEY', 'CHANNEL_SECRET'])).superRefine(requireHashTag),
    env,
  );
  const catalog = loadCatalog(env);
  const unknown = Object.keys(catalog.queues).filter((name) => !QUEUE_NAMES.includes(name as QueueName));
  if (unknown.length)
    throw new ConfigError(`RELAY_CONFIG: queues names ${unknown.join(', ')}: the relay's capabilities are ${QUEUE_NAMES.join(', ')}`);
  const queues = perQueue((name) => ownValue(catalog.queues, name) ?? queueLimitsSchema.parse(undefined));
  return { ...vars, catalog, queues, tuning: catalog.tuning.worker, webhooks: catalog.tuning.webhooks };
}
