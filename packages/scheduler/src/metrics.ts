import { Gauge, Histogram, type Registry } from 'prom-client';
import type { Dispatched, Scheduler, Tally } from './scheduler.js';

/** Accounts named in labels, by size; the rest are summed as "other" (bounded cardinality). */
const TOP_ACCOUNTS = 10;

function top(tally: Tally, by: 'count' | 'cost'): Array<[string, number]> {
  const sorted = [...tally.entries()].map(([account, t]) => [account, t[by]] as [string, number]).sort((a, b) => b[1] - a[1]);
  const shown = sorted.slice(0, TOP_ACCOUNTS);
  const rest = sorted.slice(TOP_ACCOUNTS).reduce((sum, [, n]) => sum + n, 0);
  return rest > 0 ? [...shown, ['other', rest]] : shown;
}

/**
 * The schedule's metrics. Every process that dispatches records how long jobs waited for their
 * turn; the process given `schedulers` also exports the schedule itself on each scrape: pending
 * per lane and per account, and each account's share of the capacity (its dispatched cost).
 */
export function schedulerMetrics(registry: Registry, schedulers: Record<string, Scheduler> = {}) {
  const lag = new Histogram({
    name: 'relay_dispatch_lag_seconds',
    help: 'Time a job waited in the fair schedule before it was handed to the workers, by queue and lane',
    labelNames: ['queue', 'lane'],
    buckets: [0.005, 0.05, 0.25, 1, 2.5, 5, 15, 60, 300, 1800, 7200],
    registers: [registry],
  });
  const collect = (gauge: Gauge, fill: (name: string, stats: Awaited<ReturnType<Scheduler['stats']>>) => void) =>
    Promise.all(
      Object.entries(schedulers).map(async ([name, scheduler]) => {
        // Redis away: this scrape shows the last figures, and /readyz says why
        const stats = await scheduler.stats().catch(() => undefined);
        if (stats) fill(name, stats);
      }),
    ).then(() => gauge);
  if (Object.keys(schedulers).length) {
    new Gauge({
      name: 'relay_pending_jobs',
      help: 'Jobs waiting for their turn, by queue and lane',
      labelNames: ['queue', 'lane'],
      registers: [registry],
      async collect() {
        this.reset();
        await collect(this, (queue, stats) => {
          for (const [lane, tally] of Object.entries(stats.pending))
            this.set(
              { queue, lane },
              [...tally.values()].reduce((s, t) => s + t.count, 0),
            );
        });
      },
    });
    new Gauge({
      name: 'relay_pending_jobs_by_account',
      help: `Jobs waiting for their turn, by queue, for the ${TOP_ACCOUNTS} accounts with most (the rest as "other")`,
      labelNames: ['queue', 'account'],
      registers: [registry],
      async collect() {
        this.reset();
        await collect(this, (queue, stats) => {
          const all: Tally = new Map();
          for (const tally of Object.values(stats.pending)) {
            for (const [account, t] of tally) all.set(account, { count: (all.get(account)?.count ?? 0) + t.count, cost: 0 });
          }
          for (const [account, n] of top(all, 'count')) this.set({ queue, account }, n);
        });
      },
    });
    new Gauge({
      name: 'relay_dispatched_cost_by_account',
      help: `Cost units handed to the workers and not finished, by queue, for the ${TOP_ACCOUNTS} largest accounts: each one's share of the capacity`,
      labelNames: ['queue', 'account'],
      registers: [registry],
      async collect() {
        this.reset();
        await collect(this, (queue, stats) => {
          for (const [account, n] of top(stats.running, 'cost')) this.set({ queue, account }, n);
        });
      },
    });
  }
  return {
    observe(queue: string, picks: Dispatched[]) {
      for (const pick of picks) lag.observe({ queue, lane: pick.lane }, pick.waitedMs / 1000);
    },
  };
}
