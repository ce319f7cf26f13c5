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
  webhookRetryEnv,
  tracingEnv,
  urlPolicyEnv,
  type Env,
} from '@relay/core';

const MiB = 1024 * 1024;

export const workerEnvSchema = z.object({
  /**
   * Jobs one worker process runs at once per queue. A job mostly waits (10-60 s on a real
   * upstream, then the copy), so a process runs hundreds; what the upstream takes at once is the
   * channels' and *_MAX_CONCURRENT's business, across all workers.
   */
  IMAGES_CONCURRENCY: envInt(1, 5_000).default(256),
  SPEECH_CONCURRENCY: envInt(1, 5_000).default(256),
  /**
   * Limits on the upstream calls of each queue, across every worker process (0 = none):
   * calls at once (leases in Redis, held only for the call) and calls per minute (BullMQ's
   * limiter, spread evenly so a burst reaches the upstream as a steady stream).
   */
  IMAGES_MAX_CONCURRENT: envInt(0).default(0),
  IMAGES_MAX_PER_MINUTE: envInt(0).default(0),
  SPEECH_MAX_CONCURRENT: envInt(0).default(0),
  SPEECH_MAX_PER_MINUTE: envInt(0).default(0),
  /**
   * The most jobs of a queue handed to the workers at once (the rest wait in the fair schedule).
   * Unset: *_MAX_CONCURRENT plus room for results being copied, or what the live workers run
   * when the upstream has no cap.
   */
  IMAGES_DISPATCH_WINDOW: envInt(1).optional(),
  SPEECH_DISPATCH_WINDOW: envInt(1).optional(),
  /** Overrides every upstream's own timeout when set. */
  UPSTREAM_TIMEOUT_MS: envInt(100).optional(),
  /** A call's capacity lease outlives a killed worker this long (renewed while the call runs). */
  UPSTREAM_LEASE_MS: envInt(500).default(30_000),
  /**
   * How long a job may wait, in all, for a channel to take its call while every channel that
   * serves its model is cooling (open breakers, 429 pauses); then it fails with a 503.
   */
  UPSTREAM_WAIT_MAX_MS: envInt(1_000).default(900_000),
  /** Opens the keys of channels added through the admin API (the api seals them with it). */
  CHANNEL_SECRET: envString().optional(),
  /**
   * Channels' circuit breakers: failures in a row, or a share of failures over the window from a
   * minimum of calls, open one for the cooldown.
   */
  CHANNEL_BREAKER_CONSECUTIVE: envInt(1).default(5),
  CHANNEL_BREAKER_WINDOW_MS: envInt(1_000).default(10_000),
  CHANNEL_BREAKER_MIN_CALLS: envInt(1).default(10),
  CHANNEL_BREAKER_FAILURE_SHARE: z.coerce.number().gt(0).max(1).default(0.5),
  CHANNEL_COOLDOWN_MS: envInt(100).default(10_000),
  /** How often workers look for channel changes made through the admin API. */
  CHANNEL_REFRESH_MS: envInt(100, 5_000).default(2_000),
  /** A job whose worker stops renewing its lock this long is taken over by another worker. */
  JOB_LOCK_MS: envInt(1_000).default(30_000),
  /** How often workers look for such stalled jobs. */
  STALLED_CHECK_MS: envInt(500).default(30_000),
  /** How many times a job may lose its worker (crash, kill) and be taken over before it fails (503). */
  MAX_STALLED_COUNT: envInt(0, 100).default(1),
  /**
   * A reservation open this long whose job is missing (the api died between reserving and
   * queueing) or failed (its release was lost) is given back; checked every RESERVATION_SWEEP_MS.
   */
  RESERVATION_GRACE_MS: envInt(1_000).default(600_000),
  RESERVATION_SWEEP_MS: envInt(100).default(30_000),
  /** /metrics, /healthz and /readyz of the worker process (0 = any free port). */
  METRICS_HOST: envString().default('127.0.0.1'),
  METRICS_PORT: envInt(0, 65535).default(9464),
  /** Pause after an upstream 429 that names no delay (Ark sends no Retry-After). */
  UPSTREAM_RATE_LIMIT_DELAY_MS: envInt(0).default(2_000),
  /** Upper bound on any delay an upstream asks for. */
  UPSTREAM_RATE_LIMIT_MAX_DELAY_MS: envInt(0).default(60_000),
  /** Largest result file the relay copies into the store. */
  RESULT_MAX_BYTES: envInt(1_024).default(50 * MiB),
  RESULT_DOWNLOAD_TIMEOUT_MS: envInt(1_000).default(60_000),
  /**
   * How long a worker keeps retrying to put a paid result into the store before the attempt
   * fails: a store outage shorter than this costs no second upstream call.
   */
  STORE_RETRY_MS: envInt(0).default(30_000),
  /**
   * Lines of one batch fed into the fair schedule ahead of the workers (queued or running): enough
   * to keep every free slot busy; a batch's other lines wait in its input file, costing Redis nothing.
   */
  BATCH_FEED_AHEAD: envInt(1, 10_000).default(200),
  /** Webhook deliveries: attempts per message, the first retry's delay (doubling after), each POST's deadline. */
  ...webhookRetryEnv,
  ...tracingEnv,
  WEBHOOK_TIMEOUT_MS: envInt(100).default(10_000),
  /** Days results are kept in the store (0 = for ever); relay links to older files answer 404. */
  RETENTION_DAYS: envInt(0, 36_500).default(0),
  /** Days uploaded inputs are kept (they serve only while their job runs and retries). */
  INPUT_RETENTION_DAYS: envInt(0, 36_500).default(2),
  /** How often the retention sweep runs (one worker of the pool does it). */
  RETENTION_SWEEP_MS: envInt(1_000).default(3_600_000),
  ...redisEnv,
  ...s3Env,
  ...catalogEnv,
  ...logEnv,
  ...shutdownEnv,
  ...urlPolicyEnv,
  ...placeholderEnv,
});

export type WorkerConfig = z.output<typeof workerEnvSchema>;

export const loadWorkerConfig = (env: Env = process.env) =>
  parseEnv(workerEnvSchema.superRefine(refusePlaceholders(['S3_SECRET_ACCESS_KEY', 'CHANNEL_SECRET'])).superRefine(requireHashTag), env);
