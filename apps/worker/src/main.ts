import {
  announceReady,
  byQueue,
  createBlobStore,
  createLogger,
  createMetricsRegistry,
  createRedis,
  createReplication,
  decodeFailure,
  isStoreReachable,
  onShutdown,
  parseUrlPolicy,
  runMain,
  startOpsServer,
  startTracing,
} from '@relay/core';
import { createBilling } from '@relay/billing';
import { announceJobEnd, bullPrefix, createDoors, createWebhookStore, perQueue, type QueueName } from '@relay/jobs';
import { createJobLife, notifyPartial, partsWriter } from '@relay/life';
import { loadWorkerConfig } from './config.js';
import { createWorkerMetrics } from './metrics.js';
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
import { schedulerFor, schedulerMetrics } from '@relay/scheduler';
import { createWorkers, openWorkerQueues, type Processors, type QueueSetup } from './workers.js';
import { channelAdapter, WORKER_CAPABILITIES } from './capabilities.js';
import type { CapabilityDeps } from './capability.js';

await runMain(async () => {
  const config = loadWorkerConfig();
  const { catalog } = config;
  const log = createLogger('worker', config.LOG_LEVEL);
  const tracing = startTracing('worker');
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
  const ops = await startOpsServer(config.HOST, config.METRICS_PORT, registry, {
    redis: () => redis.ping().then(() => true),
    store: () => isStoreReachable(store),
  });

  const storeRetry = (queue: QueueName) => ({
    deadlineMs: config.tuning.storeRetryMs,
    onRetry: (error: unknown) => {
      metrics.storeRetries.inc({ queue });
      log.warn({ queue, err: (error as Error).message }, 'the store refused a result; trying again');
    },
  });
  // the upstreams as channels: the config's own seeded at every start, the admin API's added at run time
  const channelStore = createChannelStore(redis, config.REDIS_PREFIX);
  await channelStore.seed(configChannels(catalog, config.tuning.upstreamTimeoutMs));
  const channels = await startChannelRegistry({
    store: channelStore,
    catalog,
    sealer: config.CHANNEL_SECRET ? createKeySealer(config.CHANNEL_SECRET) : undefined,
    timeoutMs: (channel) => channel.timeoutMs ?? config.tuning.upstreamTimeoutMs ?? 180_000,
    pools: config.queues,
    refreshMs: config.tuning.channelRefreshMs,
    adapterOf: channelAdapter,
    observe,
    onLoaded: (version) => metrics.channelsVersion.set(version),
    log,
  });
  const rateLimit = { defaultMs: config.tuning.rateLimitDelayMs, maxMs: config.tuning.rateLimitMaxDelayMs };
  const upstream = createUpstreamCalls({
    redis,
    subscriber,
    prefix: config.REDIS_PREFIX,
    registry: channels,
    leaseMs: config.tuning.upstreamLeaseMs,
    breaker: {
      windowMs: config.tuning.breaker.windowMs,
      minCalls: config.tuning.breaker.minCalls,
      failureShare: config.tuning.breaker.failureShare,
      consecutive: config.tuning.breaker.consecutive,
      cooldownMs: config.tuning.breaker.cooldownMs,
    },
    rateLimit,
    metrics,
    log,
  });

  const queues = openWorkerQueues(config.REDIS_URL, bullPrefix(config.REDIS_PREFIX), log);
  const schedule = schedulerMetrics(registry);
  const schedulers = perQueue((name) =>
    schedulerFor(redis, queues[name], config.REDIS_PREFIX, name, {
      onDispatched: (picks) => schedule.observe(name, picks),
      onError: (err) => log.warn({ err: err.message, queue: name }, 'dispatch failed; trying again at the next tick'),
    }),
  );
  // a job's life here: its begin, checkpoints, charge, and its end told to whoever subscribes
  // a job's end is told once it is on a replica (behind Sentinel)
  const replication = await createReplication(config.REDIS_URL, config.REDIS_PREFIX, log, registry);
  const life = createJobLife({
    redis,
    prefix: config.REDIS_PREFIX,
    billing,
    schedulers,
    queues,
    log,
    ...(replication.waits ? { replicated: replication.replicated } : {}),
  });
  // every capability's processor, from the worker's capability table, with what this process shares
  const shared: CapabilityDeps = {
    catalog,
    life,
    metrics,
    upstream,
    store,
    copyLimits: (queue) => ({
      maxBytes: config.tuning.resultMaxBytes,
      timeoutMs: config.tuning.resultDownloadTimeoutMs,
      retry: storeRetry(queue),
      urls: parseUrlPolicy(config.URL_ALLOWLIST),
    }),
    storeRetry,
    partial: (job, file, fresh) => notifyPartial(redis, config.REDIS_PREFIX, job, file, fresh),
    parts: (job, take) => partsWriter(redis, config.REDIS_PREFIX, job, take),
    log,
  };
  const setup = <Q extends QueueName>(queue: Q): QueueSetup<Q> => ({
    concurrency: config.WORKER_CONCURRENCY,
    process: WORKER_CAPABILITIES[queue].processor(shared),
  });
  const running = createWorkers(byQueue<Processors>(setup), {
    redisUrl: config.REDIS_URL,
    prefix: bullPrefix(config.REDIS_PREFIX),
    lockMs: config.tuning.jobLockMs,
    stalledCheckMs: config.tuning.stalledCheckMs,
    maxStalledCount: config.tuning.maxStalledCount,
    rateLimit,
    waitMaxMs: config.tuning.upstreamWaitMaxMs,
    life,
    metrics,
    log,
  });
  await Promise.all(Object.values(running.workers).map((w) => w.waitUntilReady()));
  for (const capability of Object.values(WORKER_CAPABILITIES)) capability.warm?.(log);
  // the pool's window: what the upstream takes at once (the queue's cap and the channels'
  // capacities, whichever is smaller), plus a few ready to take a slot the moment one frees (a
  // job leaves the window when its calls are over; copying holds no place); with no cap, what
  // the live workers run
  const windowOf = (queue: QueueName) => {
    const concurrency = config.WORKER_CONCURRENCY;
    const { maxConcurrent, dispatchWindow } = config.queues[queue];
    if (dispatchWindow) return { concurrency, cap: dispatchWindow };
    const caps = [maxConcurrent, channels.capacity(queue)].filter((cap) => cap > 0);
    const upstream = caps.length ? Math.min(...caps) : 0;
    return { concurrency, cap: upstream > 0 ? upstream + Math.max(2, Math.ceil(upstream / 4)) : 0 };
  };
  const dispatching = startDispatching({ schedulers, windows: windowOf, log });
  const sweeper = startReservationSweeper(
    billing,
    queues,
    { graceMs: config.tuning.reservationGraceMs, everyMs: config.tuning.reservationSweepMs },
    log,
    () => metrics.reservationsSwept.inc(),
  );
  const retention = startRetention(
    store,
    redis,
    `${config.REDIS_PREFIX}:retention:lock`,
    { filesDays: config.RETENTION_DAYS, inputsDays: config.tuning.inputRetentionDays, everyMs: config.tuning.retentionSweepMs },
    log,
    (prefix, n) => metrics.retentionDeleted.inc({ prefix }, n),
  );
  if (config.S3_CREATE_BUCKET) createBucketWhenReachable(store, log);
  const webhooks = startWebhookDelivery({
    redisUrl: config.REDIS_URL,
    prefix: bullPrefix(config.REDIS_PREFIX),
    store: createWebhookStore(redis, config.REDIS_PREFIX),
    urls: parseUrlPolicy(config.URL_ALLOWLIST),
    attempts: config.webhooks.attempts,
    backoffMs: config.webhooks.backoffMs,
    timeoutMs: config.tuning.webhookTimeoutMs,
    log,
  });
  const doors = createDoors(catalog);
  const batches = startBatches({
    redis,
    prefix: config.REDIS_PREFIX,
    store,
    billing,
    catalog,
    queues,
    schedulers,
    life,
    urls: parseUrlPolicy(config.URL_ALLOWLIST),
    ahead: config.tuning.batchFeedAhead,
    lockMs: config.tuning.jobLockMs,
    announce: (batch, event) =>
      webhooks.announce(
        batch.accountId,
        event,
        { id: batch.id, object: 'batch' },
        { status: batch.status, output_file_id: batch.outputFileId, error_file_id: batch.errorFileId },
      ),
    log,
  });
  // a job's end, decided once (@relay/life tells its money, its place and its waiters) and told to batches and webhooks
  life.watch(running.workers);
  life.onEnded((end) => batches.ended(end.job, end.outcome === 'completed' ? { result: end.result } : { failedReason: end.failedReason }));
  life.onEnded(({ job, ...end }) =>
    announceJobEnd(
      webhooks.announcer,
      doors,
      job.queueName as QueueName,
      job,
      end.outcome === 'completed'
        ? { outcome: 'completed', result: end.result }
        : { outcome: 'failed', error: decodeFailure(end.failedReason) },
    ).catch((err: Error) => log.warn({ jobId: job.id, err: err.message }, 'could not queue a webhook')),
  );
  log.info({ queues: Object.values(running.workers).map((w) => w.name), metrics: `${ops.url}/metrics` }, 'worker ready');
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
    dispatching.stop();
    const deadline = new Promise<void>((resolve) => setTimeout(resolve, config.SHUTDOWN_GRACE_MS).unref());
    await Promise.race([closing, deadline]);
    await webhooks.close();
    await Promise.all(Object.values(queues).map((queue) => queue.close()));
    ops.server.close();
    subscriber.disconnect();
    replication.close();
    redis.disconnect();
    await tracing.shutdown();
  });
});
