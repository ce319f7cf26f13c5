import { z } from 'zod';

/**
 * The relay's internal knobs: timings, retries and sizes an operator has rarely a reason to change.
 * Each default is the named constant the relay runs with; the config file's `tuning` section
 * (RELAY_CONFIG) overrides any of them, as the tests do to make a recovery happen in seconds.
 * They are not environment variables: what an operator does set (addresses, secrets, the port,
 * the wait a proxy allows) stays one, and everything here is one typed object per process.
 */
const MiB = 1024 * 1024;
const int = (min = 0, max = Number.MAX_SAFE_INTEGER) => z.number().int().min(min).max(max);

export const apiTuningSchema = z
  .strictObject({
    /**
     * The largest JSON or form body. Two inline images at the 10 MiB cap fit (base64 adds a third);
     * larger sets go as URLs. Parsing is synchronous: this bounds how long one body holds the event
     * loop (~50 ms at 32 MiB).
     */
    bodyLimitBytes: int(1024).default(32 * MiB),
    /** The largest input image a request may carry or link to. */
    inputImageMaxBytes: int(1024).default(10 * MiB),
    /** Requests per minute per key unless the key has its own limit (0 = unlimited). */
    rateLimitPerMinute: int().default(600),
    /** GET /v1/jobs/{id} reads per minute, as a multiple of the key's request limit (its own bucket). */
    jobReadRateMultiplier: int(1, 1_000).default(10),
    /** Memory for finished answers kept to serve repeated GET /v1/jobs/{id} reads without rebuilding them. */
    answerCacheBytes: int().default(64 * MiB),
    /** The most a caller may ask for with `Prefer: wait=N`. */
    maxWaitMs: int().default(300_000),
    /**
     * How often a waiting request looks at its job's state itself: a worker that dies between
     * finishing a job and telling its waiter leaves that wait to this look, not to its whole budget.
     */
    waitRecheckMs: int(100).default(30_000),
    /** How long an Idempotency-Key is remembered. */
    idempotencyTtlSeconds: int(60).default(86_400),
    /** Attempts of a job (a vendor's 500, a lost worker), and the first retry's delay (doubling after). */
    jobAttempts: int(1, 20).default(4),
    jobBackoffMs: int().default(1_000),
    /** How long finished jobs and their results stay fetchable by their job id. */
    jobKeepSeconds: int(60).default(86_400),
    /** How long a presigned file link (FILES_MODE=redirect) is good for. */
    fileLinkTtlSeconds: int(10, 7 * 86_400).default(300),
    /** The largest batch input file (POST /v1/files), and the most lines it may hold (OpenAI's limits). */
    batchFileMaxBytes: int(1).default(200 * MiB),
    batchFileMaxLines: int(1).default(50_000),
    /** How long a batch may run before it expires with what it finished (OpenAI's "24h"). */
    batchCompletionWindowSeconds: int(1).default(86_400),
    /** How often each api process adds its per-minute request statistics to Redis (the console's traffic chart). */
    statsFlushMs: int(100, 60_000).default(5_000),
  })
  .prefault({});

export const workerTuningSchema = z
  .strictObject({
    /** Overrides every upstream's own `timeoutMs` when set. */
    upstreamTimeoutMs: int(100).optional(),
    /** A call's capacity lease outlives a killed worker this long (renewed while the call runs). */
    upstreamLeaseMs: int(500).default(30_000),
    /**
     * How long a job may wait, in all, for a channel to take its call while every channel that
     * serves its model is cooling (open breakers, 429 pauses); then it fails with a 503.
     */
    upstreamWaitMaxMs: int(1_000).default(900_000),
    /** Pause after an upstream 429 that names no delay (Ark sends no Retry-After), and the bound on any delay asked for. */
    rateLimitDelayMs: int().default(2_000),
    rateLimitMaxDelayMs: int().default(60_000),
    /**
     * Channels' circuit breakers: failures in a row, or a share of failures over the window from a
     * minimum of calls, open one for the cooldown.
     */
    breaker: z
      .strictObject({
        consecutive: int(1).default(5),
        windowMs: int(1_000).default(10_000),
        minCalls: int(1).default(10),
        failureShare: z.number().gt(0).max(1).default(0.5),
        cooldownMs: int(100).default(10_000),
      })
      .prefault({}),
    /** How often workers look for channel changes made through the admin API. */
    channelRefreshMs: int(100, 5_000).default(2_000),
    /** A job whose worker stops renewing its lock this long is taken over by another worker. */
    jobLockMs: int(1_000).default(30_000),
    /** How often workers look for such stalled jobs. */
    stalledCheckMs: int(500).default(30_000),
    /** How many times a job may lose its worker (crash, kill) and be taken over before it fails (503). */
    maxStalledCount: int(0, 100).default(1),
    /**
     * A reservation open this long whose job is missing (the api died between reserving and
     * queueing) or failed (its release was lost) is given back; looked for every `reservationSweepMs`.
     */
    reservationGraceMs: int(1_000).default(600_000),
    reservationSweepMs: int(100).default(30_000),
    /** The largest result file the relay copies into the store, and how long its download may take. */
    resultMaxBytes: int(1_024).default(50 * MiB),
    resultDownloadTimeoutMs: int(1_000).default(60_000),
    /**
     * How long a worker keeps retrying to put a paid result into the store before the attempt
     * fails: a store outage shorter than this costs no second upstream call.
     */
    storeRetryMs: int().default(30_000),
    /**
     * Lines of one batch fed into the fair schedule ahead of the workers (queued or running): enough
     * to keep every free slot busy; a batch's other lines wait in its input file, costing Redis nothing.
     */
    batchFeedAhead: int(1, 10_000).default(200),
    /** Each webhook POST's deadline. */
    webhookTimeoutMs: int(100).default(10_000),
    /** Days uploaded inputs are kept (they serve only while their job runs and retries). */
    inputRetentionDays: int(0, 36_500).default(2),
    /** How often the retention sweep runs (one worker of the pool does it). */
    retentionSweepMs: int(1_000).default(3_600_000),
  })
  .prefault({});

/**
 * How a webhook message is retried: attempts per message and the first retry's delay (doubling
 * after). On the message itself, since the worker delivers what any process queues (the worker a
 * job's end, the api a job it cancelled before it began).
 */
export const webhookTuningSchema = z
  .strictObject({
    attempts: int(1, 50).default(10),
    backoffMs: int(10).default(10_000),
  })
  .prefault({});

export const tuningSchema = z
  .strictObject({
    api: apiTuningSchema,
    worker: workerTuningSchema,
    webhooks: webhookTuningSchema,
  })
  .prefault({});

/**
 * The limits of one capability's upstream calls, across every worker process (0 = none): calls at
 * once (leases in Redis, held only for the call) and calls per minute (BullMQ's limiter, spread
 * evenly so a burst reaches the upstream as a steady stream); and the most of its jobs handed to
 * the workers at once (the rest wait in the fair schedule). Unset, that window is `maxConcurrent`
 * plus room for results being copied, or what the live workers run when the upstream has no cap.
 */
export const queueLimitsSchema = z
  .strictObject({
    maxConcurrent: int().default(0),
    maxPerMinute: int().default(0),
    dispatchWindow: int(1).optional(),
  })
  .prefault({});

export type Tuning = z.output<typeof tuningSchema>;
export type ApiTuning = Tuning['api'];
export type WorkerTuning = Tuning['worker'];
export type WebhookTuning = Tuning['webhooks'];
export type QueueLimits = z.output<typeof queueLimitsSchema>;
/** What a test or a config file may set: any part of the tuning, the rest its defaults. */
export type TuningInput = NonNullable<z.input<typeof tuningSchema>>;
