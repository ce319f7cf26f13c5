import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Response } from 'express';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { consoleConfigSchema, type ConsoleConfig } from '../admin/console-schemas.js';
import { jsonAnswer, textAnswer } from '../openapi/parts.js';

export const CONSOLE_PATH = '/console';

/**
 * Where the built console is: the one given to the app (tests build their own); else beside the bundle (dist/console, the
 * Docker image), else the workspace's own build (apps/console/dist: `npm start` builds it).
 */
export function findConsoleDir(configured?: string): string | undefined {
  const here = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));
  const candidates = configured ? [configured] : [here('./console/'), here('../../../console/dist/')];
  return candidates.find((dir) => existsSync(join(dir, 'index.html')));
}

/** The index names hashed assets: it must be asked for again each time; the assets never change. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';
/** Inline styles: uPlot positions its legend and cursor with style attributes. Blob/data: audio and images the playground makes. */
const CSP =
  "default-src 'self'; img-src 'self' data: blob:; media-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

const notBuilt = `<!doctype html><html lang="en"><meta charset="utf-8"><title>relay console</title>
<body style="font:16px system-ui;max-width:40em;margin:3em auto"><h1>The console is not built</h1>
<p>Run <code>npm run build:console</code> (npm start does it for you), or build it into dist/console beside the bundle.</p></body></html>`;

/**
 * The operator console: GET /console/config (public: whether admin is enabled, nothing
 * secret), the static files, and index.html for every other path under /console (the app
 * routes in the browser). The console talks to /admin with the token the operator typed.
 */
export function consoleRoutes(options: { adminEnabled: boolean; version: string; dir?: string }) {
  const router = express.Router();
  const dir = findConsoleDir(options.dir);
  const index = dir ? readFileSync(join(dir, 'index.html'), 'utf8') : undefined;
  const sendIndex = (res: Response) => {
    res.set({
      'Cache-Control': REVALIDATE,
      'Content-Security-Policy': CSP,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
    });
    if (!index) return void res.status(503).type('html').send(notBuilt);
    res.type('html').send(index);
  };

  router.get(`${CONSOLE_PATH}/config`, (_req, res) => {
    const config: ConsoleConfig = { adminEnabled: options.adminEnabled, version: options.version };
    res.set('Cache-Control', 'no-store').json(config);
  });
  if (dir) {
    router.use(
      `${CONSOLE_PATH}/assets`,
      express.static(join(dir, 'assets'), { index: false, setHeaders: (res) => res.set('Cache-Control', IMMUTABLE) }),
      (_req: express.Request, res: Response) => void res.status(404).type('text').send('no such console asset'),
    );
  }
  router.get(CONSOLE_PATH, (_req, res) => sendIndex(res));
  router.get(`${CONSOLE_PATH}/*path`, (_req, res) => sendIndex(res));
  return router;
}

const html = textAnswer('HTML', 'text/html');

export const consolePaths: ZodOpenApiPathsObject = {
  [`${CONSOLE_PATH}/config`]: {
    get: {
      tags: ['console'],
      summary: 'Whether the admin API is enabled (no authentication; nothing secret)',
      responses: { '200': jsonAnswer('Console settings', consoleConfigSchema) },
    },
  },
  [CONSOLE_PATH]: {
    get: {
      tags: ['console'],
      summary: 'The operator console (a single-page app; sign in with the admin token)',
      responses: { '200': html, '503': textAnswer('The console is not built (a page that says how to build it)', 'text/html') },
    },
  },
  [`${CONSOLE_PATH}/{path}`]: {
    'x-express-route': `${CONSOLE_PATH}/*path`,
    get: {
      tags: ['console'],
      summary: "The console's pages (the app routes in the browser); /console/assets/* are its files",
      requestParams: { path: z.object({ path: z.string() }) },
      responses: { '200': html, '503': textAnswer('The console is not built', 'text/html') },
    },
  },
};
