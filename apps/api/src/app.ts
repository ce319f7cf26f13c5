import express, { type Request, type Response } from 'express';
import type { Redis } from 'ioredis';
import { parseUrlPolicy, tracingActive, withFreshFiles, type BlobStore, type Catalog, type Logger, type Replication } from '@relay/core';
import { Queue } from 'bullmq';
import {
  announceJobEnd,
  bullPrefix,
  CAPABILITIES,
  createWebhookStore,
  webhookAnnouncer,
  WEBHOOKS_QUEUE,
  type Delivery,
  type Doors,
} from '@relay/jobs';
import type { Billing } from '@relay/billing';
import { cancelledByError, readParts, type JobLife } from '@relay/life';
import type { Registry } from 'prom-client';
import { adminHeaders, jsonBodiesOnly, requireAdmin } from './admin/admin-auth.js';
import { DASHBOARD_PATH, dashboardRouter } from './admin/dashboard.js';
import { consoleAdminRoutes } from './admin/console-routes.js';
import { adminRoutes } from './admin/routes.js';
import { scheduleRoutes } from './admin/schedule-routes.js';
import type { AccountsStore } from './auth/accounts.js';
import { GOOGLE_KEYS } from './auth/authenticate.js';
import { createAuthFailures } from './auth/failures.js';
import type { ApiConfig } from './config.js';
import { consoleRoutes } from './console/routes.js';
import { filesRoutes } from './files/routes.js';
import { geminiRoutes } from './gemini/routes.js';
import { googleDialect } from './gemini/versions.js';
import { opsRoutes } from './health.js';
import { createApiMetrics } from './metrics.js';
import { buildOpenApiDocument } from './openapi/document.js';
import { openApiRoutes } from './openapi/routes.js';
import { noRoute, routesOf } from './http/no-route.js';
import { accessLog } from './http/access-log.js';
import { errorScope } from './http/errors.js';
import './http/locals.js';
import { requestId } from './http/request-id.js';
import { traceRequests } from './http/trace-requests.js';
import type { Turns } from './http/pace.js';
import { createDepthGuard } from './jobs/depth-guard.js';
import type { JobRequestDeps } from './jobs/handle-job-request.js';
import type { DoorDeps } from './doors/door-routes.js';
import { createIdempotency } from './jobs/idempotency.js';
import { ADMISSIONS_IN_FLIGHT, createAdmissionGate } from './jobs/admission-gate.js';
import type { Lifecycle } from './jobs/lifecycle.js';
import type { Queues } from './jobs/queues.js';
import { createAnswerCache } from './jobs/answer-cache.js';
import { jobsRoutes } from './jobs/routes.js';
import { batchFilesRoutes } from './batch-files/routes.js';
import { createBatchRecords, createFileRecords } from '@relay/batch';
import { batchRoutes } from './batches/routes.js';
import { webhookRoutes } from './admin/webhook-routes.js';
import { channelRoutes } from './admin/channel-routes.js';
import { adminBatchRoutes } from './admin/batch-routes.js';
import { createKeySealer } from '@relay/channels';
import { rateLimit } from './limits/rate-limit.js';
import { modelsRoutes } from './models/routes.js';
import { doorRoutes } from './doors/door-routes.js';
import { jobControlRoutes } from './jobs/control-routes.js';
import type { TrafficRecorder } from './stats/traffic.js';

export interface ApiDeps {
  config: ApiConfig;
  catalog: Catalog;
  /** Every door (dialect) onto every capability: images, speech. */
  doors: Doors;
  redis: Redis;
  /** Waits until what an answer depends on is on a Redis replica (@relay/core's redis-replicated). */
  replication: Replication;
  queues: Queues;
  store: BlobStore;
  accounts: AccountsStore;
  billing: Billing;
  /** A job's admission and cancellation (@relay/life). */
  life: JobLife;
  lifecycle: Lifecycle;
  /** New requests go on a few per turn of the event loop (http/pace.ts). */
  turns: Turns;
  registry: Registry;
  /** Per-minute requests, errors and latency for the console (stats/traffic.ts). */
  traffic: TrafficRecorder;
  log: Logger;
  /** The built console; unset, beside the bundle (dist/console) or apps/console/dist (console/routes.ts). */
  consoleDir?: string;
}

/** The relay's version as the OpenAPI document states it. */
export const RELAY_VERSION = '0.1.0';

export function createApp(deps: ApiDeps) {
  const { config, log } = deps;
  const app = express();
  app.disable('x-powered-by');
  // answers are generated once per request: an ETag would hash every body for nothing
  app.set('etag', false);
  app.set('trust proxy', config.TRUST_PROXY);
  const publicBase = (req: Request) => config.PUBLIC_URL?.replace(/\/+$/, '') ?? `${req.protocol}://${req.get('host')}`;
  const files = createFileRecords(deps.redis, config.REDIS_PREFIX);
  const webhookStore = createWebhookStore(deps.redis, config.REDIS_PREFIX);
  const batches = createBatchRecords(deps.redis, config.REDIS_PREFIX);
  const openApi = buildOpenApiDocument(deps.catalog, deps.doors, RELAY_VERSION);

  app.use(requestId);
  if (tracingActive()) app.use(traceRequests());
  app.use(accessLog(log.child({ component: 'http' })));
  const metrics = createApiMetrics(deps.registry, deps.queues);
  app.use(metrics.middleware);
  // every router that authenticates a key finds it here (auth/failures.ts: authFailuresOf)
  const authFailures = createAuthFailures(deps.redis, config.REDIS_PREFIX, metrics.authFailures, log.child({ component: 'auth' }));
  app.locals.authFailures = authFailures;
  app.use(deps.traffic.middleware);
  app.use(opsRoutes(deps.redis, deps.store, deps.registry));
  app.use(openApiRoutes(openApi));
  app.use(consoleRoutes({ adminEnabled: Boolean(config.ADMIN_TOKEN), version: RELAY_VERSION, dir: deps.consoleDir }));
  if (config.ADMIN_TOKEN) {
    // headers on every answer, the 401s among them; the token before anything else; then, for a
    // request that changes state, a JSON body or none (admin/admin-auth.ts)
    const admin = [adminHeaders, requireAdmin(config.ADMIN_TOKEN, authFailures), jsonBodiesOnly];
    const dashboard = [adminHeaders, requireAdmin(config.ADMIN_TOKEN, authFailures, { basicToLook: true }), jsonBodiesOnly];
    const prefix = config.REDIS_PREFIX;
    app.use(DASHBOARD_PATH, dashboard, dashboardRouter(deps.queues));
    app.use(
      '/admin',
      admin,
      adminRoutes({ ...deps, prefix, bodyLimit: config.tuning.bodyLimitBytes }),
      consoleAdminRoutes({ ...deps, prefix, demoKeyFile: config.console.demoKeyFile }),
    );
    app.use(
      '/admin',
      admin,
      scheduleRoutes(deps.accounts, deps.queues, config.tuning.bodyLimitBytes),
      webhookRoutes(deps.accounts, webhookStore, parseUrlPolicy(config.URL_ALLOWLIST), config.tuning.bodyLimitBytes),
      channelRoutes({
        redis: deps.redis,
        prefix,
        catalog: deps.catalog,
        sealer: config.CHANNEL_SECRET ? createKeySealer(config.CHANNEL_SECRET) : undefined,
        bodyLimit: config.tuning.bodyLimitBytes,
        simulatorUrl: config.console.simulatorUrl,
      }),
      adminBatchRoutes(batches, deps.store),
    );
  }
  // webhooks of jobs cancelled here, before any worker took them: queued for the workers' delivery
  const webhookAnnounce = webhookAnnouncer(
    new Queue<Delivery>(WEBHOOKS_QUEUE, { connection: deps.redis, prefix: bullPrefix(config.REDIS_PREFIX) }),
    webhookStore,
    { attempts: config.webhooks.attempts, backoffMs: config.webhooks.backoffMs },
  );
  // a job's answer takes the files its worker just stored, published to this process, when it heard
  // them (@relay/core's fresh.ts; one inbox serves every queue)
  const answerStore = withFreshFiles(deps.store, (key) => {
    const file = deps.queues.images.inbox.takeFresh(key);
    metrics.answerFileReads.inc({ from: file ? 'fresh' : 'store' });
    return file;
  });
  const jobs: JobRequestDeps = {
    life: deps.life,
    store: answerStore,
    idempotency: createIdempotency(deps.redis, config.REDIS_PREFIX, config.tuning.idempotencyTtlSeconds),
    replication: deps.replication,
    gate: createAdmissionGate(ADMISSIONS_IN_FLIGHT),
    lifecycle: deps.lifecycle,
    wait: { defaultMs: config.WAIT_TIMEOUT_MS, maxMs: config.tuning.maxWaitMs },
    parts: (jobId, after) => readParts(deps.redis, config.REDIS_PREFIX, jobId, after),
    keepSeconds: config.tuning.jobKeepSeconds,
    cancelled: (queue, job, reason) =>
      announceJobEnd(webhookAnnounce, deps.doors, queue, job, { outcome: 'failed', error: cancelledByError(reason) }),
    log,
  };
  const routes = Object.fromEntries(
    Object.values(CAPABILITIES).map((c) => {
      const handle = deps.queues[c.id];
      return [c.id, { queue: c.id, kind: c.kind, handle, guard: createDepthGuard(handle), jobName: c.jobName }];
    }),
  ) as DoorDeps['routes'];
  const limits = {
    requests: rateLimit(deps.redis, config.REDIS_PREFIX, {
      name: 'requests',
      defaultPerMinute: config.tuning.rateLimitPerMinute,
      multiplier: 1,
    }),
    reads: rateLimit(deps.redis, config.REDIS_PREFIX, {
      name: 'reads',
      defaultPerMinute: config.tuning.rateLimitPerMinute,
      multiplier: config.tuning.jobReadRateMultiplier,
    }),
  };
  // before the speech and OpenAI routes: they share paths, and the caller's credential decides.
  // Listings and token counts reach no upstream: they count as reads.
  app.use(geminiRoutes({ ...deps, limit: limits.reads }));
  app.use(modelsRoutes({ ...deps, limit: limits.reads }));
  const urls = parseUrlPolicy(config.URL_ALLOWLIST);
  const errors = errorScope(log, (req) => (googleDialect(req) ? 'google' : 'openai'));
  const fail = (error: unknown, req: Request, res: Response) => errors(error, req, res, () => {});
  for (const door of deps.doors.all) {
    app.use(doorRoutes(door, { ...deps, urls, jobs, routes, publicBase, limit: limits.requests, fail }));
  }
  const jobReads = {
    accounts: deps.accounts,
    keys: GOOGLE_KEYS,
    readLimit: limits.reads,
    cache: createAnswerCache(config.tuning.answerCacheBytes),
    queues: deps.queues,
    doors: deps.doors,
    store: answerStore,
    publicBase,
    redis: deps.redis,
    prefix: config.REDIS_PREFIX,
  };
  app.use(
    jobsRoutes(jobReads),
    jobControlRoutes({
      ...jobReads,
      life: deps.life,
      keepSeconds: config.tuning.jobKeepSeconds,
      requestLimit: limits.requests,
      cancelled: jobs.cancelled,
      webhooks: webhookStore,
    }),
  );
  app.use(
    batchFilesRoutes({
      accounts: deps.accounts,
      store: deps.store,
      records: files,
      limits: { maxBytes: config.tuning.batchFileMaxBytes, maxLines: config.tuning.batchFileMaxLines },
      requestLimit: limits.requests,
      readLimit: limits.reads,
      log,
    }),
    batchRoutes({
      accounts: deps.accounts,
      records: batches,
      create: {
        redis: deps.redis,
        store: deps.store,
        billing: deps.billing,
        records: batches,
        files,
        catalog: deps.catalog,
        log,
        windowSeconds: config.tuning.batchCompletionWindowSeconds,
        settings: {
          maxLineBytes: config.tuning.bodyLimitBytes,
          inputImageMaxBytes: config.tuning.inputImageMaxBytes,
          attempts: config.tuning.jobAttempts,
          backoffMs: config.tuning.jobBackoffMs,
          keepSeconds: config.tuning.jobKeepSeconds,
        },
      },
      bodyLimit: config.tuning.bodyLimitBytes,
      publicBase,
      requestLimit: limits.requests,
      readLimit: limits.reads,
    }),
  );
  app.use(filesRoutes(deps.store, config.FILES_MODE, config.tuning.fileLinkTtlSeconds));
  // the routes the document lists are the ones a mistyped path is compared with
  app.use(noRoute(routesOf(openApi)), errors);
  return app;
}
