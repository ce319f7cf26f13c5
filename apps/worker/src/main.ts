import {
  announceReady,
  createBlobStore,
  createLogger,
  createMetricsRegistry,
  createRedis,
  decodeFailure,
  isStoreReachable,
  loadCatalog,
  onShutdown,
  parseUrlPolicy,
  runMain,
  startOpsServer,
} from '@relay/core';
import { createBilling } from '@relay/billing';
import { bullPrefix, createWebhookStore, type WebhookEvent } from '@relay/jobs';
import type { Job } from 'bullmq';
import { loadWorkerConfig } from './config.js';
import { createWorkerMetrics } from './metrics.js';
import { createImageProcessor } from './images/process-image-job.js';
import { createSpeechProcessor } from './speech/process-speech-job.js';
import { createChannelStore, createKeySealer } from '@relay/channels';
import { startChannelRegistry } from './channels/registry.js';
import { createUpstreamCalls } from './channels/upstream-calls.js';
import { configChannels } from './channels/config-channels.js';
import { startReservationSweeper } from './reservation-sweeper.js';
import { startDispatching } from './dispatching.js';
import { createBucketWhenReachable } from './bucket.js';
import { startRetention } from './retention.js';
import { startWebhookDelivery } from './webhooks/deliver.js';
import { startBatches } from './batches.js';
import { schedulerMetrics } from '@relay/scheduler';
import { createWorkers } from './workers.js';
import { notifyEnd, notifyPartial } from './notify-end.js';
import { onJobEnds } from './job-ends.js';
import { preloadSpeechEncoder } from '@relay/audio';

await runMain(async () => {
  const config = loadWorkerConfig();
  const catalog = loadCatalog();
  const log = createLogger('worker', config.LOG_LEVEL);
  const store = createBlobStore(config);
  const redis = createRedis(config.REDIS_URL, 'patient', 'worker-billing', (err) =>
    log.warn({ err: err.message }, 'redis connection error'),
  );
  const billing = createBilling(redis, config.REDIS_PREFIX);
  const registry = createMetricsRegistry('worker');
  const metrics = createWorkerMetrics(registry);
  const observe = (name: string) => (status: string) => metrics.upstreamCalls.inc({ upstream: name, status });
  const subscriber = createRedis(config.REDIS_URL, 'patient', 'worker-slots', (err) =>
    log.warn({ err: err.message }, 'redis connection error'),
  );
  // its port first: a port taken (another relay's worker on 9464) stops the start before any job is taken
  const ops = await startOpsServer(config.METRICS_HOST, config.METRICS_PORT, registry, {
    redis: () => redis.ping().then(() => true),
    store: () => isStoreReachable(store),
  });

  const storeRetry = (queue: string) => ({
    deadlineMs: config.STORE_RETRY_MS,
    onRetry: (error: unknown) => {
      metrics.storeRetries.inc({ queue });
      log.warn({ queue, err: (error as Error).message }, 'the store refused a result; trying again');
    },
  });
  // the upstreams as channels: the config's own seeded at every start, the admin API's added at run time
  const channelStore = createChannelStore(redis, config.REDIS_PREFIX);
  await channelStore.seed(configChannels(catalog, config.UPSTREAM_TIMEOUT_MS));
  const channels = await startChannelRegistry({
    store: channelStore,
    catalog,
    sealer: config.CHANNEL_SECRET ? createKeySealer(config.CHANNEL_SECRET) : undefined,
    timeoutMs: (channel) => channel.timeoutMs ?? config.UPSTREAM_TIMEOUT_MS ?? 180_000,
    pools: {
      images: { maxConcurrent: config.IMAGES_MAX_CONCURRENT, maxPerMinute: config.IMAGES_MAX_PER_MINUTE },
      speech: { maxConcurrent: config.SPEECH_MAX_CONCURRENT, maxPerMinute: config.SPEECH_MAX_PER_MINUTE },
    },
    refreshMs: config.CHANNEL_REFRESH_MS,
    observe,
    onLoaded: (version) => metrics.channelsVersion.set(version),
    log,
  });
  const rateLimit = { defaultMs: config.UPSTREAM_RATE_LIMIT_DELAY_MS, maxMs: config.UPSTREAM_RATE_LIMIT_MAX_DELAY_MS };
  const upstream = createUpstreamCalls({
    redis,
    subscriber,
    prefix: config.REDIS_PREFIX,
    registry: channels,
    leaseMs: config.UPSTREAM_LEASE_MS,
    breaker: {
      windowMs: config.CHANNEL_BREAKER_WINDOW_MS,
      minCalls: config.CHANNEL_BREAKER_MIN_CALLS,
      failureShare: config.CHANNEL_BREAKER_FAILURE_SHARE,
      consecutive: config.CHANNEL_BREAKER_CONSECUTIVE,
      cooldownMs: config.CHANNEL_COOLDOWN_MS,
    },
    rateLimit,
    metrics,
    log,
  });

  // the schedule starts once the workers exist; a job's calls can only be over after that
  let dispatching: ReturnType<typeof startDispatching> | undefined;
  const callsOver = (queue: 'images' | 'speech') => (jobId: string) => dispatching?.callsOver(queue, jobId);
  const running = createWorkers(
    {
      images: {
        concurrency: config.IMAGES_CONCURRENCY,
        process: createImageProcessor({
          catalog,
          billing,
          metrics,
          upstream,
          callsOver: callsOver('images'),
          store,
          copyLimits: {
            maxBytes: config.RESULT_MAX_BYTES,
            timeoutMs: config.RESULT_DOWNLOAD_TIMEOUT_MS,
            retry: storeRetry('images'),
            urls: parseUrlPolicy(config.URL_ALLOWLIST),
          },
          partial: (job, file) => notifyPartial(redis, config.REDIS_PREFIX, job, file),
          log,
        }),
      },
      speech: {
        concurrency: config.SPEECH_CONCURRENCY,
        process: createSpeechProcessor({
          catalog,
          billing,
          metrics,
          upstream,
          callsOver: callsOver('speech'),
          store,
          storeRetry: storeRetry('speech'),
          log,
        }),
      },
    },
    {
      redisUrl: config.REDIS_URL,
      prefix: bullPrefix(config.REDIS_PREFIX),
      lockMs: config.JOB_LOCK_MS,
      stalledCheckMs: config.STALLED_CHECK_MS,
      maxStalledCount: config.MAX_STALLED_COUNT,
      rateLimit,
      waitMaxMs: config.UPSTREAM_WAIT_MAX_MS,
      billing,
      metrics,
      log,
    },
  );
  await Promise.all(running.workers.map((w) => w.waitUntilReady()));
  // loading FFmpeg holds the event loop ~100 ms: at start, not in the middle of a job
  preloadSpeechEncoder().catch((err: Error) =>
    log.warn({ err: err.message }, 'the speech encoder could not be loaded; OpenAI-dialect speech will fail'),
  );
  const schedule = schedulerMetrics(registry);
  // the pool's window: what the upstream takes at once (the queue's cap and the channels'
  // capacities, whichever is smaller), plus a few ready to take a slot the moment one frees (a
  // job leaves the window when its calls are over; copying holds no place); with no cap, what
  // the live workers run
  const windowOf = (concurrency: number, poolCap: number, queue: 'images' | 'speech', explicit?: number) => {
    if (explicit) return { concurrency, cap: explicit };
    const caps = [poolCap, channels.capacity(queue)].filter((cap) => cap > 0);
    const upstream = caps.length ? Math.min(...caps) : 0;
    return { concurrency, cap: upstream > 0 ? upstream + Math.max(2, Math.ceil(upstream / 4)) : 0 };
  };
  dispatching = startDispatching({
    redis,
    prefix: config.REDIS_PREFIX,
    queues: running.queues,
    workers: running.workers,
    windows: (queue) =>
      queue === 'images'
        ? windowOf(config.IMAGES_CONCURRENCY, config.IMAGES_MAX_CONCURRENT, 'images', config.IMAGES_DISPATCH_WINDOW)
        : windowOf(config.SPEECH_CONCURRENCY, config.SPEECH_MAX_CONCURRENT, 'speech', config.SPEECH_DISPATCH_WINDOW),
    onDispatched: (queue, picks) => schedule.observe(queue, picks),
    log,
  });
  const sweeper = startReservationSweeper(
    billing,
    running.queues,
    { graceMs: config.RESERVATION_GRACE_MS, everyMs: config.RESERVATION_SWEEP_MS },
    log,
    () => metrics.reservationsSwept.inc(),
  );
  const retention = startRetention(
    store,
    redis,
    `${config.REDIS_PREFIX}:retention:lock`,
    { filesDays: config.RETENTION_DAYS, inputsDays: config.INPUT_RETENTION_DAYS, everyMs: config.RETENTION_SWEEP_MS },
    log,
    (prefix, n) => metrics.retentionDeleted.inc({ prefix }, n),
  );
  if (config.S3_CREATE_BUCKET) createBucketWhenReachable(store, log);
  const webhooks = startWebhookDelivery({
    redisUrl: config.REDIS_URL,
    prefix: bullPrefix(config.REDIS_PREFIX),
    store: createWebhookStore(redis, config.REDIS_PREFIX),
    urls: parseUrlPolicy(config.URL_ALLOWLIST),
    attempts: config.WEBHOOK_ATTEMPTS,
    backoffMs: config.WEBHOOK_BACKOFF_MS,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    log,
  });
  const announce = (job: Job, event: WebhookEvent, data: Record<string, unknown>) =>
    webhooks
      .announceJob(job, event, data)
      .catch((err: Error) => log.warn({ jobId: job.id, err: err.message }, 'could not queue a webhook'));
  const batches = startBatches({
    redis,
    prefix: config.REDIS_PREFIX,
    store,
    billing,
    catalog,
    queues: running.queues,
    schedulers: dispatching.schedulers,
    urls: parseUrlPolicy(config.URL_ALLOWLIST),
    ahead: config.BATCH_FEED_AHEAD,
    lockMs: config.JOB_LOCK_MS,
    announce: (batch, event) =>
      webhooks.announce(
        batch.accountId,
        event,
        { id: batch.id, object: 'batch' },
        { status: batch.status, output_file_id: batch.outputFileId, error_file_id: batch.errorFileId },
      ),
    log,
  });
  // a job's end, decided once and told to each part that cares
  onJobEnds(
    running.workers,
    [
      // a job BullMQ failed without running its processor (it stalled too often) still gives its money back;
      // after the processor's own release this is a no-op
      (end) => (end.outcome === 'failed' ? billing.release(end.job.id!) : undefined),
      (end) => notifyEnd(redis, config.REDIS_PREFIX, end),
      (end) => dispatching.ended(end.queue, end.job.id),
      (end) => batches.ended(end.job, end.outcome === 'completed' ? { result: end.result } : { failedReason: end.failedReason }),
      ({ job, ...end }) => {
        const created = Math.floor(job.timestamp / 1000);
        if (end.outcome === 'completed') return announce(job, 'job.completed', { status: 'completed', created });
        const error = decodeFailure(end.failedReason);
        return announce(job, 'job.failed', { status: 'failed', created, error: { code: error.code, message: error.message } });
      },
    ],
    log,
  );
  log.info({ queues: running.workers.map((w) => w.name), metrics: `${ops.url}/metrics` }, 'worker ready');
  announceReady({ url: ops.url });

  onShutdown(async () => {
    // no job starts from here on (the workers close first, in this tick); the active ones get the
    // grace period, and webhooks close after them, so a job ending meanwhile is still announced
    const closing = running.close();
    log.info('shutting down: finishing active jobs');
    sweeper.stop();
    retention.stop();
    channels.stop();
    batches.stop();
    dispatching?.stop();
    const deadline = new Promise<void>((resolve) => setTimeout(resolve, config.SHUTDOWN_GRACE_MS).unref());
    await Promise.race([closing, deadline]);
    await webhooks.close();
    ops.server.close();
    subscriber.disconnect();
    redis.disconnect();
  });
});
