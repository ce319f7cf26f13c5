import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import express from 'express';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { textAnswer } from './parts.js';

export const DOCS_ASSETS = '/docs/assets';

/** swagger-ui-dist's files: a prebuilt renderer from npm, served by the relay itself (no CDN, works offline). */
const swaggerDir = () => dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** Started by a file, not inline, so the page can forbid inline scripts. The validator badge would call out: off. */
const INIT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json', dom_id: '#reference', deepLinking: true, validatorUrl: null, filter: true,
  docExpansion: 'list', defaultModelsExpandDepth: 0, tryItOutEnabled: false,
  presets: [SwaggerUIBundle.presets.apis], layout: 'BaseLayout',
});`;

const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>relay API reference</title><link rel="icon" href="data:,"><link rel="stylesheet" href="${DOCS_ASSETS}/swagger-ui.css">
<style>body{margin:0;font-family:system-ui,sans-serif}header{padding:.75rem 1.25rem;border-bottom:1px solid #ddd;display:flex;gap:1.5rem;align-items:baseline;flex-wrap:wrap}header a{color:#1d4ed8}</style>
</head><body><header><strong>relay API reference</strong><a href="/openapi.json">openapi.json</a><a href="/console">console</a></header>
<main id="reference"><noscript>This page renders <a href="/openapi.json">/openapi.json</a> with JavaScript.</noscript></main>
<script src="${DOCS_ASSETS}/swagger-ui-bundle.js"></script><script src="${DOCS_ASSETS}/init.js"></script></body></html>`;

const CSP =
  "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'";

/** GET /docs: the OpenAPI document rendered by Swagger UI, from the relay's own files. */
export function docsRoutes() {
  const router = express.Router();
  const dir = swaggerDir();
  router.get('/docs', (_req, res) => void res.set({ 'Content-Security-Policy': CSP, 'Cache-Control': 'no-cache' }).type('html').send(PAGE));
  router.use(
    DOCS_ASSETS,
    (req, res, next) => {
      if (req.path === '/init.js') return void res.type('js').set('Cache-Control', 'no-cache').send(INIT);
      next();
    },
    express.static(dir, { index: false, maxAge: '1h' }),
    (_req: express.Request, res: express.Response) => void res.status(404).type('text').send('no such asset'),
  );
  return router;
}

export const docsPaths: ZodOpenApiPathsObject = {
  '/docs': {
    get: {
      tags: ['operations'],
      summary: 'This document, rendered as a readable reference (Swagger UI, served by the relay)',
      responses: { '200': textAnswer('HTML', 'text/html') },
    },
  },
};
