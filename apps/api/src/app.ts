import express, { type Request } from 'express';
import type { Redis } from 'ioredis';
import { AppError, type BlobStore, type Catalog, type Logger } from '@relay/core';
import type { Billing } from '@relay/billing';
import { adminRoutes } from './admin/routes.js';
import type { AccountsStore } from './auth/accounts.js';
import { GOOGLE_KEYS } from './auth/authenticate.js';
import type { ApiConfig } from './config.js';
import { filesRoutes } from './files/routes.js';
import { healthRoutes } from './health.js';
import { accessLog } from './http/access-log.js';
import { errorHandler } from './http/errors.js';
import './http/locals.js';
import { requestId } from './http/request-id.js';
import { imagePresenter, imagesRoutes } from './images/routes.js';
import { createDepthGuard } from './jobs/depth-guard.js';
import type { JobRequestDeps, JobRoute } from './jobs/handle-job-request.js';
import { createIdempotency } from './jobs/idempotency.js';
import type { Lifecycle } from './jobs/lifecycle.js';
import type { Queues } from './jobs/queues.js';
import { jobsRoutes } from './jobs/routes.js';
import { speechPresenter, speechRoutes } from './speech/routes.js';

export interface ApiDeps {
  config: ApiConfig;
  catalog: Catalog;
  redis: Redis;
  queues: Queues;
  store: BlobStore;
  accounts: AccountsStore;
  billing: Billing;
  lifecycle: Lifecycle;
  log: Logger;
}

export function createApp(deps: ApiDeps) {
  const { config, log } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.TRUST_PROXY);
  const publicBase = (req: Request) => config.PUBLIC_URL?.replace(/\/+$/, '') ?? `${req.protocol}://${req.get('host')}`;

  app.use(requestId);
  app.use(accessLog(log.child({ component: 'http' })));
  app.use(healthRoutes(deps.redis, deps.store));
  if (config.ADMIN_TOKEN) {
    app.use(
      '/admin',
      adminRoutes({ ...deps, prefix: config.REDIS_PREFIX, adminToken: config.ADMIN_TOKEN, bodyLimit: config.BODY_LIMIT_BYTES }),
      errorHandler('openai', log),
    );
  }
  const jobs: JobRequestDeps = {
    billing: deps.billing,
    idempotency: createIdempotency(deps.redis, config.REDIS_PREFIX, config.IDEMPOTENCY_TTL_SECONDS),
    lifecycle: deps.lifecycle,
    wait: { defaultMs: config.WAIT_TIMEOUT_MS, maxMs: config.MAX_WAIT_MS },
    log,
  };
  const routes: Record<'images' | 'speech', JobRoute> = {
    images: { kind: 'img', handle: deps.queues.images, guard: createDepthGuard(deps.queues.images), jobName: 'generate', dialect: 'openai' },
    speech: { kind: 'tts', handle: deps.queues.speech, guard: createDepthGuard(deps.queues.speech), jobName: 'synthesize', dialect: 'google' },
  };
  app.use(imagesRoutes({ ...deps, jobs, route: routes.images, publicBase }), errorHandler('openai', log));
  app.use(speechRoutes({ ...deps, jobs, route: routes.speech, publicBase }), errorHandler('google', log));
  app.use(
    jobsRoutes(deps.accounts, GOOGLE_KEYS, {
      img: { handle: deps.queues.images, dialect: 'openai', present: (req) => imagePresenter(deps.store, publicBase(req)) },
      tts: { handle: deps.queues.speech, dialect: 'google', present: (req) => speechPresenter(deps.store, publicBase(req)) },
    }),
    errorHandler('openai', log),
  );
  app.use(filesRoutes(deps.store, config.FILES_MODE, config.FILE_LINK_TTL_SECONDS), errorHandler('openai', log));
  const noRoute = () => {
    throw new AppError('not_found', 'no such route');
  };
  app.use('/v1beta', noRoute, errorHandler('google', log));
  app.use(noRoute, errorHandler('openai', log));
  return app;
}
