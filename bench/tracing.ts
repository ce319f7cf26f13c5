import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { IMAGE, post } from './bodies.js';
import { cpuOf, measure, round, type Cell } from './compare.js';
import { benchKey, type BenchStack } from './stack.js';

/**
 * What tracing costs: the relay's own CPU per image request and its p99, with tracing off (no
 * OTEL variable) and on (every span sampled and exported over OTLP to a sink on loopback that
 * takes and drops them, as a collector would), the same load one after the other.
 */
export interface TracingReport {
  concurrency: number;
  rows: Array<{ tracing: string; perSecond: number; p99Ms: number; cpuMsApiWorker: number }>;
  addedCpuMsPerJob: number;
}

export async function tracingCost(stack: BenchStack, cellMs: number, concurrency = 16): Promise<TracingReport> {
  let spans = 0;
  const sink = createServer((req, res) => {
    req.on('data', () => undefined);
    req.on('end', () => {
      spans += 1;
      res.setHeader('content-type', req.headers['content-type'] ?? 'application/x-protobuf');
      res.end();
    });
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  // the comparison's upstream: 50 ms a call, no limit (a burst part before may have set others)
  await stack.simConfig({ SIM_LATENCY_MS: 50, SIM_MAX_CONCURRENT: 0 });
  const endpoint = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
  const cells: Record<string, Cell> = {};
  try {
    for (const [name, env] of [
      ['off', {}],
      ['on', { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_BSP_SCHEDULE_DELAY: '1000' }],
    ] as const) {
      const worker = await stack.start('worker', env);
      const api = await stack.start('api', env);
      try {
        const key = await benchKey(api);
        const target = {
          name,
          send: post(`${api.ready.url}/v1/images/generations`, IMAGE, { authorization: `Bearer ${key}` }),
          pids: { api: api.child.pid!, worker: worker.child.pid! },
        };
        cells[name] = await measure(target, concurrency, cellMs);
      } finally {
        await Promise.all([worker.stop(), api.stop()]);
      }
    }
  } finally {
    sink.close();
  }
  if (spans === 0) throw new Error('tracing on exported nothing: the figures would not measure it');
  const rows = Object.entries(cells).map(([tracing, cell]) => ({
    tracing,
    perSecond: cell.perSecond,
    p99Ms: cell.p99Ms,
    cpuMsApiWorker: cpuOf(cell, ['api', 'worker']),
  }));
  return { concurrency, rows, addedCpuMsPerJob: round(rows[1]!.cpuMsApiWorker - rows[0]!.cpuMsApiWorker, 3) };
}

export function printTracing(report: TracingReport) {
  console.log(`\ntracing off and on (every span exported), images c=${report.concurrency}: api + worker CPU per request`);
  console.table(report.rows);
  console.log(`tracing on costs ${report.addedCpuMsPerJob} ms of CPU per job (target: at most 0.3)`);
}
