import express from 'express';
import { z } from 'zod';
import type { createDocument, ZodOpenApiPathsObject } from 'zod-openapi';
import { docsPaths, docsRoutes } from './docs-page.js';
import { jsonAnswer } from './parts.js';

/** GET /openapi.json (the document built once at start from the zod schemas and the catalog) and GET /docs. */
export function openApiRoutes(document: ReturnType<typeof createDocument>) {
  const router = express.Router();
  router.get('/openapi.json', (_req, res) => void res.json(document));
  router.use(docsRoutes());
  return router;
}

export const openApiPaths: ZodOpenApiPathsObject = {
  '/openapi.json': {
    get: {
      tags: ['operations'],
      summary: 'This document',
      responses: {
        '200': jsonAnswer('OpenAPI 3.1', z.looseObject({ openapi: z.literal('3.1.0'), info: z.looseObject({}), paths: z.looseObject({}) })),
      },
    },
  },
  ...docsPaths,
};
