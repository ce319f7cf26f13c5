import express, { type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import { createLinkSigner } from './ark/links.js';
import type { SimulatorConfig } from './config.js';
import type { SimContext } from './context.js';
import { FaultBook, faultSchema } from './faults.js';
import { SimStats } from './stats.js';
import { SIM_VENDORS } from './vendors.js';

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
  // every vendor's API, each under its own paths
  for (const vendor of Object.values(SIM_VENDORS)) app.use(vendor.routes(ctx));
  app.use((err: Error & { status?: number; type?: string }, req: Request, res: Response, _next: NextFunction) => {
    const status = err.status && err.status < 500 ? err.status : 500;
    const vendor = Object.values(SIM_VENDORS).find((v) => v.paths.some((path) => req.path.startsWith(path)));
    if (vendor) return vendor.sendError(res, status, err.message);
    res.status(status).json({ error: { message: err.message } });
  });
  return { app, ctx };
}
