import express from 'express';
import { docsRoutes } from './docs-page.js';
import type { buildOpenApiDocument } from './document.js';

/** GET /openapi.json (the document built once at start from the zod schemas and the catalog) and GET /docs. */
export function openApiRoutes(document: ReturnType<typeof buildOpenApiDocument>) {
  const router = express.Router();
  router.get('/openapi.json', (_req, res) => void res.json(document));
  router.use(docsRoutes());
  return router;
}
