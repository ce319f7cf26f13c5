import express from 'express';
import type { Redis } from 'ioredis';
import { isStoreReachable, type BlobStore } from '@relay/core';

/** /healthz: the process answers. /readyz: Redis and the store answer too. */
export function healthRoutes(redis: Redis, store: BlobStore) {
  const router = express.Router();
  router.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  router.get('/readyz', async (_req, res) => {
    const [redisOk, storeOk] = await Promise.all([
      redis.ping().then(
        () => true,
        () => false,
      ),
      isStoreReachable(store),
    ]);
    res.status(redisOk && storeOk ? 200 : 503).json({ redis: redisOk, store: storeOk });
  });
  return router;
}
