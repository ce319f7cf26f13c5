import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';
import { listenOn } from '../net/listen.js';

/** Named readiness checks, such as { redis: () => ping(), store: () => headBucket() }. */
export type ReadinessChecks = Record<string, () => Promise<boolean>>;

export async function runChecks(checks: ReadinessChecks): Promise<{ ok: boolean; checks: Record<string, boolean> }> {
  const names = Object.keys(checks);
  const results = await Promise.all(names.map((name) => checks[name]!().catch(() => false)));
  const report = Object.fromEntries(names.map((name, i) => [name, results[i]!]));
  return { ok: results.every(Boolean), checks: report };
}

/**
 * /metrics, /healthz and /readyz on a port of their own, for processes that serve nothing
 * else over HTTP (the worker). `variable` names the setting of the port, for the one line said
 * when it is taken.
 */
export async function startOpsServer(
  host: string,
  port: number,
  registry: Registry,
  checks: ReadinessChecks,
  variable = 'METRICS_PORT',
): Promise<{ server: Server; url: string }> {
  const server = createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/metrics') {
      res.writeHead(200, { 'content-type': registry.contentType }).end(await registry.metrics());
    } else if (req.method === 'GET' && path === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    } else if (req.method === 'GET' && path === '/readyz') {
      const { ok, checks: report } = await runChecks(checks);
      res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify(report));
    } else {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"no such route"}}');
    }
  });
  const { port: bound } = await listenOn(server, port, host, variable);
  return { server, url: `http://${host}:${bound}` };
}
