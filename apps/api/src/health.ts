import express from 'express';
import type { Redis } from 'ioredis';
import type { Registry } from 'prom-client';
import { isStoreReachable, runChecks, type BlobStore } from '@relay/core';

/** /healthz: the process answers. /readyz: Redis and the store answer too. /metrics: Prometheus. */
export function opsRoutes(redis: Redis, store: BlobStore, registry: Registry) {
  const checks = {
    redis: () => redis.ping().then(() => true),
    store: () => isStoreReachable(store),
  };
  const router = express.Router();
  router.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  router.get('/readyz', async (_req, res) => {
    const { ok, checks: report } = await runChecks(checks);
    res.status(ok ? 200 : 503).json(report);
  });
  router.get('/metrics', async (_req, res) => {
    res.type(registry.contentType).send(await registry.metrics());
  });
  return router;
}
