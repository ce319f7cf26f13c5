import { randomBytes } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import { createGenerateHandler } from './ark/generate.js';
import { sendArkError } from './ark/errors.js';
import { createLinkSigner } from './ark/links.js';
import type { SimulatorConfig } from './config.js';
import type { SimContext } from './context.js';
import { FaultBook, faultSchema } from './faults.js';
import { SimStats, type CallSeen, type SimCall } from './stats.js';
import { geminiAuth } from './gemini/auth.js';
import { sendGoogleError } from './gemini/errors.js';
import { createGenerateContentHandler } from './gemini/generate-content.js';

/** Ark request ids look like "0217" + a timestamp + random hex. */
const arkRequestId = () => `0217${Date.now()}${randomBytes(12).toString('hex')}`;

function arkAuth(ctx: SimContext) {
  return (req: Request, res: Response, next: NextFunction) => {
    const token = /^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1];
    if (!token || !ctx.keys.has(token)) {
      return sendArkError(res, 401, 'AuthenticationError', 'the API key or AK/SK in the request is missing or invalid.');
    }
    next();
  };
}

/** Counts calls in flight and refuses beyond the configured concurrency, like a busy upstream. */
function tracked(ctx: SimContext, api: SimCall['api'], refuse: (res: Response) => void) {
  return (req: Request, res: Response, next: NextFunction) => {
    const full = ctx.config.SIM_MAX_CONCURRENT > 0 && ctx.stats.inflight >= ctx.config.SIM_MAX_CONCURRENT;
    const startedAt = ctx.stats.begin();
    // a call ends when its answer is handed to the socket ('finish'), before the client can
    // react to it; 'close' still ends calls that never got one (dropped, hung up)
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      ctx.stats.end(api, res.writableFinished ? res.statusCode : 0, startedAt, res.locals.seen as CallSeen | undefined);
    };
    res.on('finish', end);
    res.on('close', end);
    if (full) return refuse(res);
    next();
  };
}

const runtimeConfigSchema = z.strictObject({
  SIM_LATENCY_MS: z.number().int().min(0).optional(),
  SIM_IMAGE_SPACING_MS: z.number().int().min(0).optional(),
  SIM_SPEECH_CHUNK_MS: z.number().int().min(0).optional(),
  SIM_MAX_CONCURRENT: z.number().int().min(0).optional(),
  SIM_MAX_IPM: z.number().int().min(0).optional(),
  SIM_SPEECH_RPM: z.number().int().min(0).optional(),
  SIM_STREAM_UNSUPPORTED: z.enum(['refuse', 'ignore']).optional(),
  SIM_RETIRED_MODELS: z.string().optional(),
});

function controlRoutes(ctx: SimContext) {
  const router = express.Router();
  router.post('/faults', (req, res) => {
    const parsed = z.union([faultSchema, z.array(faultSchema)]).safeParse(req.body);
    if (!parsed.success) return void res.status(400).json({ error: z.prettifyError(parsed.error) });
    for (const fault of [parsed.data].flat()) ctx.faults.add(fault);
    res.json({ pending: ctx.faults.pending });
  });
  router.delete('/faults', (_req, res) => {
    ctx.faults.clear();
    res.json({ pending: [] });
  });
  router.get('/stats', (_req, res) => void res.json({ ...ctx.stats.toJSON(), holding: ctx.faults.holding }));
  router.get('/calls', (_req, res) => void res.json({ calls: ctx.stats.calls }));
  /** `?count=n` lets only the n longest-held calls go on, so a test can end one held call and keep another. */
  router.post('/release', (req, res) => {
    const count = z.coerce.number().int().min(1).optional().safeParse(req.query.count);
    if (!count.success) return void res.status(400).json({ error: z.prettifyError(count.error) });
    res.json({ released: ctx.faults.release(count.data) });
  });
  /** Changes latency and limits of a running simulator (benchmarks switch between phases). */
  router.patch('/config', (req, res) => {
    const parsed = runtimeConfigSchema.safeParse(req.body);
    if (!parsed.success) return void res.status(400).json({ error: z.prettifyError(parsed.error) });
    Object.assign(ctx.config, parsed.data);
    res.json(ctx.config);
  });
  router.post('/reset', (_req, res) => {
    ctx.faults.clear();
    ctx.stats.reset();
    res.json({ ok: true });
  });
  return router;
}

export interface Simulator {
  app: express.Express;
  ctx: SimContext;
}

export function createSimulator(config: SimulatorConfig, publicBase: string): Simulator {
  const ctx: SimContext = {
    config,
    keys: new Set(
      config.SIM_API_KEYS.split(',')
        .map((k) => k.trim())
        .filter(Boolean),
    ),
    faults: new FaultBook(),
    stats: new SimStats(),
    links: createLinkSigner(publicBase, config.SIM_LINK_SECRET, config.SIM_URL_TTL_SECONDS),
  };
  const app = express();
  app.disable('x-powered-by');
  app.use(express.json({ limit: '100mb' }));
  app.use('/_sim', controlRoutes(ctx));
  app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  app.get('/tos/ark-content-generation/:name', (req, res) => ctx.links.serve(req, res));

  app.use('/api/v3', (_req, res, next) => {
    res.set('x-request-id', arkRequestId());
    next();
  });
  app.post(
    '/api/v3/images/generations',
    tracked(ctx, 'images', (res) =>
      sendArkError(res, 429, 'InflightBatchsizeExceeded', 'Too many requests in flight. Please retry later.'),
    ),
    arkAuth(ctx),
    createGenerateHandler(ctx),
  );
  app.post(
    '/v1beta/models/:modelAction',
    tracked(ctx, 'speech', (res) => sendGoogleError(res, 429, 'Resource has been exhausted (e.g. check quota).')),
    geminiAuth(ctx.keys),
    createGenerateContentHandler(ctx),
  );
  app.use((err: Error & { status?: number; type?: string }, req: Request, res: Response, _next: NextFunction) => {
    const status = err.status && err.status < 500 ? err.status : 500;
    if (req.path.startsWith('/v1beta')) return sendGoogleError(res, status, err.message);
    sendArkError(res, status, status === 500 ? 'InternalServiceError' : 'InvalidParameter', err.message);
  });
  return { app, ctx };
}
