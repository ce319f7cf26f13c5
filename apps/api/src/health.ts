import express from 'express';
import type { Redis } from 'ioredis';
import type { Registry } from 'prom-client';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { isStoreReachable, runChecks, type BlobStore } from '@relay/core';
import { jsonAnswer, textAnswer } from './openapi/parts.js';

const liveSchema = z.object({ status: z.literal('ok') });
const readinessSchema = z.object({ redis: z.boolean(), store: z.boolean() }).describe('Whether each answered');

/** /healthz: the process answers. /readyz: Redis and the store answer too. /metrics: Prometheus. */
export function opsRoutes(redis: Redis, store: BlobStore, registry: Registry) {
  const checks = {
    redis: () => redis.ping().then(() => true),
    store: () => isStoreReachable(store),
  };
  const router = express.Router();
  router.get('/healthz', (_req, res) => void res.json({ status: 'ok' } satisfies z.input<typeof liveSchema>));
  router.get('/readyz', async (_req, res) => {
    const { ok, checks: report } = await runChecks(checks);
    res.status(ok ? 200 : 503).json(report);
  });
  router.get('/metrics', async (_req, res) => {
    res.type(registry.contentType).send(await registry.metrics());
  });
  return router;
}

const operations = { tags: ['operations'] };

export const opsPaths: ZodOpenApiPathsObject = {
  '/healthz': { get: { ...operations, summary: 'The process answers', responses: { '200': jsonAnswer('Up', liveSchema) } } },
  '/readyz': {
    get: {
      ...operations,
      summary: 'Redis and the store answer',
      responses: { '200': jsonAnswer('Ready', readinessSchema), '503': jsonAnswer('Not ready', readinessSchema) },
    },
  },
  '/metrics': {
    get: { ...operations, summary: 'Prometheus metrics', responses: { '200': textAnswer('Text exposition format', 'text/plain') } },
  },
};
