import express from 'express';
import type { Catalog } from '@relay/core';
import type { Doors } from '@relay/jobs';
import { docsRoutes } from './docs-page.js';
import { buildOpenApiDocument } from './document.js';

/** GET /openapi.json (built once at start from the zod schemas and the catalog) and GET /docs. */
export function openApiRoutes(catalog: Catalog, doors: Doors, version: string) {
  const document = buildOpenApiDocument(catalog, doors, version);
  const router = express.Router();
  router.get('/openapi.json', (_req, res) => void res.json(document));
  router.use(docsRoutes());
  return router;
}
