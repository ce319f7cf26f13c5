import express from 'express';
import type { Catalog } from '@relay/core';
import { renderDocsPage } from './docs-page.js';
import { buildOpenApiDocument } from './document.js';

/** GET /openapi.json and GET /docs, built once at start from the zod schemas and the catalog. */
export function openApiRoutes(catalog: Catalog, version: string) {
  const document = buildOpenApiDocument(catalog, version);
  const page = renderDocsPage(document);
  const router = express.Router();
  router.get('/openapi.json', (_req, res) => void res.json(document));
  router.get('/docs', (_req, res) => void res.type('html').send(page));
  return router;
}
