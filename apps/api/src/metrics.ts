import type { NextFunction, Request, Response } from 'express';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Queues } from './jobs/queues.js';

const STATES = ['wait', 'active', 'delayed', 'prioritized', 'completed', 'failed'] as const;

/** The front door's metrics: HTTP traffic by route and status, how deep each queue is, failed authentications. */
export function createApiMetrics(registry: Registry, queues: Queues) {
  const requests = new Counter({
    name: 'relay_http_requests_total',
    help: 'HTTP requests answered, by route pattern, method and status',
    labelNames: ['route', 'method', 'status'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'relay_http_request_duration_seconds',
    help: 'Time to answer, including the wait for the job',
    labelNames: ['route', 'method'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [registry],
  });
  new Gauge({
    name: 'relay_queue_jobs',
    help: 'Jobs per queue and state',
    labelNames: ['queue', 'state'],
    registers: [registry],
    async collect() {
      await Promise.all(
        Object.entries(queues).map(async ([name, { queue }]) => {
          // Redis away: this scrape shows the last counts, and /readyz says why
          const counts = await queue.getJobCounts(...STATES).catch(() => undefined);
          for (const state of STATES) if (counts) this.set({ queue: name, state }, counts[state] ?? 0);
        }),
      );
    },
  });

  new Gauge({
    name: 'relay_inbox_notices',
    help: "Notices of job ends (and streamed parts) this api process received in its inbox: only its own waiters' jobs",
    labelNames: ['type'],
    registers: [registry],
    collect() {
      for (const [type, n] of Object.entries(queues.images.inbox.received)) this.set({ type }, n);
    },
  });

  new Gauge({
    name: 'relay_waiting_requests',
    help: 'Requests of this api process waiting for their job, per queue',
    labelNames: ['queue'],
    registers: [registry],
    collect() {
      for (const [name, { waits }] of Object.entries(queues)) this.set({ queue: name }, waits.size);
    },
  });

  const authFailures = new Counter({
    name: 'relay_auth_failures_total',
    help: 'Failed authentications by credential (admin token or API key): refused (a wrong one, 401), limited (its address had too many, 429)',
    labelNames: ['credential', 'outcome'],
    registers: [registry],
  });

  const answerFileReads = new Counter({
    name: 'relay_answer_file_reads_total',
    help: 'Stored files an answer carried the bytes of (a clip answered inline), by where they came from: fresh (published by the worker that stored it) or store (read back)',
    labelNames: ['from'],
    registers: [registry],
  });

  return {
    /** Counted by the failed-authentication limit (auth/failures.ts). */
    authFailures,
    /** Counted as an answer takes a file's bytes (app.ts). */
    answerFileReads,
    /** Records each answer under its route pattern (never the raw path: ids would explode the labels). */
    middleware(req: Request, res: Response, next: NextFunction) {
      // a number, not startTimer's closures and hrtime pair: every waiting request keeps this until it is answered
      const started = performance.now();
      res.on('finish', () => {
        const path = (req.route as { path?: unknown } | undefined)?.path;
        const route = typeof path === 'string' ? `${req.baseUrl}${path}` : 'unmatched';
        requests.inc({ route, method: req.method, status: res.statusCode });
        duration.observe({ route, method: req.method }, (performance.now() - started) / 1000);
      });
      next();
    },
  };
}
