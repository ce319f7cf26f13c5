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
  resolveUpstream,
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
import { createArkImages, type ImageGeneration } from './upstreams/ark/images.js';
import { createCallSlots } from './upstreams/call-slots.js';
import { createGeminiSpeech, type SpeechSynthesis } from './upstreams/gemini/speech.js';
import { startReservationSweeper } from './reservation-sweeper.js';
import { startDispatching } from './dispatching.js';
import { createBucketWhenReachable } from './bucket.js';
import { startRetention } from './retention.js';
import { startWebhookDelivery } from './webhooks/deliver.js';
import { schedulerMetrics } from '@relay/scheduler';
import { createWorkers } from './workers.js';

await runMain(async () => {
  const config = loadWorkerConfig();
  const catalog = loadCatalog();
  const log = createLogger('worker', config.LOG_LEVEL);
  const store = createBlobStore(config);
  const redis = createRedis(config.REDIS_URL, 'patient', 'worker-billing', (err) => log.warn({ err: err.message }, 'redis connection error'));
  const billing = createBilling(redis, config.REDIS_PREFIX);
  const registry = createMetricsRegistry('worker');
  const metrics = createWorkerMetrics(registry);
  const observe = (name: string) => (status: string) => metrics.upstreamCalls.inc({ upstream: name, status });
  const subscriber = createRedis(config.REDIS_URL, 'patient', 'worker-slots', (err) => log.warn({ err: err.message }, 'redis connection error'));
  const slotsFor = (queue: string, max: number) => createCallSlots(redis, subscriber, `${config.REDIS_PREFIX}:slots:${queue}`, max);

  const storeRetry = (queue: string) => ({
    deadlineMs: config.STORE_RETRY_MS,
    onRetry: (error: unknown) => {
      metrics.storeRetries.inc({ queue });
      log.warn({ queue, err: (error as Error).message }, 'the store refused a result; trying again');
    },
  });
  const imageUpstreams: Record<string, ImageGeneration> = {};
  const speechUpstreams: Record<string, SpeechSynthesis> = {};
  for (const [name, configured] of Object.entries(catalog.upstreams)) {
    const upstream = { ...resolveUpstream(configured), timeoutMs: config.UPSTREAM_TIMEOUT_MS ?? configured.timeoutMs };
    if (upstream.protocol === 'ark') imageUpstreams[name] = createArkImages(upstream, observe(name));
    if (upstream.protocol === 'gemini') speechUpstreams[name] = createGeminiSpeech(upstream, observe(name));
  }

  // the schedule starts once the workers exist; a job's calls can only be over after that
  let dispatching: ReturnType<typeof startDispatching> | undefined;
  const callsOver = (queue: 'images' | 'speech') => (jobId: string) => dispatching?.callsOver(queue, jobId);
  const running = createWorkers(
    {
      images: {
        concurrency: config.IMAGES_CONCURRENCY,
        maxPerMinute: config.IMAGES_MAX_PER_MINUTE,
        process: createImageProcessor({
          catalog,
          billing,
          metrics,
          slots: slotsFor('images', config.IMAGES_MAX_CONCURRENT),
          callsOver: callsOver('images'),
          upstreams: imageUpstreams,
          store,
          copyLimits: {
            maxBytes: config.RESULT_MAX_BYTES,
            timeoutMs: config.RESULT_DOWNLOAD_TIMEOUT_MS,
            retry: storeRetry('images'),
            urls: parseUrlPolicy(config.URL_ALLOWLIST),
          },
          log,
        }),
      },
      speech: {
        concurrency: config.SPEECH_CONCURRENCY,
        maxPerMinute: config.SPEECH_MAX_PER_MINUTE,
        process: createSpeechProcessor({
          catalog,
          billing,
          metrics,
          slots: slotsFor('speech', config.SPEECH_MAX_CONCURRENT),
          callsOver: callsOver('speech'),
          upstreams: speechUpstreams,
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
      rateLimit: { defaultMs: config.UPSTREAM_RATE_LIMIT_DELAY_MS, maxMs: config.UPSTREAM_RATE_LIMIT_MAX_DELAY_MS },
      billing,
      metrics,
      log,
    },
  );
  await Promise.all(running.workers.map((w) => w.waitUntilReady()));
  const schedule = schedulerMetrics(registry);
  // the pool's window: what the upstream takes at once, plus a few ready to take a slot the moment
  // one frees (a job leaves the window when its calls are over; copying holds no place)
  const windowOf = (concurrency: number, maxConcurrent: number, explicit?: number) => ({
    concurrency,
    cap: explicit ?? (maxConcurrent > 0 ? maxConcurrent + Math.max(2, Math.ceil(maxConcurrent / 4)) : 0),
  });
  dispatching = startDispatching({
    redis,
    prefix: config.REDIS_PREFIX,
    queues: running.queues,
    workers: running.workers,
    windows: {
      images: windowOf(config.IMAGES_CONCURRENCY, config.IMAGES_MAX_CONCURRENT, config.IMAGES_DISPATCH_WINDOW),
      speech: windowOf(config.SPEECH_CONCURRENCY, config.SPEECH_MAX_CONCURRENT, config.SPEECH_DISPATCH_WINDOW),
    },
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
    webhooks.announce(job, event, data).catch((err: Error) => log.warn({ jobId: job.id, err: err.message }, 'could not queue a webhook'));
  for (const worker of running.workers) {
    worker.on('completed', (job) => void announce(job, 'job.completed', { status: 'completed', created: Math.floor(job.timestamp / 1000) }));
    worker.on('failed', (job) => {
      // only a job that failed for good: a retry ahead is not the end
      void job?.getState().then((state) => {
        if (state !== 'failed') return;
        const error = decodeFailure(job.failedReason);
        return announce(job, 'job.failed', { status: 'failed', created: Math.floor(job.timestamp / 1000), error: { code: error.code, message: error.message } });
      });
    });
  }
  const ops = await startOpsServer(config.METRICS_HOST, config.METRICS_PORT, registry, {
    redis: () => redis.ping().then(() => true),
    store: () => isStoreReachable(store),
  });
  log.info({ queues: running.workers.map((w) => w.name), metrics: `${ops.url}/metrics` }, 'worker ready');
  announceReady({ url: ops.url });

  onShutdown(async () => {
    log.info('shutting down: finishing active jobs');
    sweeper.stop();
    retention.stop();
    await webhooks.close();
    dispatching?.stop();
    const deadline = new Promise<void>((resolve) => setTimeout(resolve, config.SHUTDOWN_GRACE_MS).unref());
    await Promise.race([running.close(), deadline]);
    ops.server.close();
    subscriber.disconnect();
    redis.disconnect();
  });
});
