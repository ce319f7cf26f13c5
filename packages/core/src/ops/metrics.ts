import { readdir } from 'node:fs/promises';
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';

/**
 * Node's own metrics that walk every open handle or descriptor on the event loop at each
 * scrape: with 10,000 callers waiting, one scrape held the api ~75 ms. The descriptor count is
 * kept, read off the loop; the per-handle ones say nothing it does not.
 */
const WALK_EVERY_HANDLE = [
  'nodejs_active_handles',
  'nodejs_active_handles_total',
  'nodejs_active_resources',
  'nodejs_active_resources_total',
  'process_open_fds',
];

/** One Prometheus registry per process, with Node's own metrics (CPU, memory, event-loop lag). */
export function createMetricsRegistry(app: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ app });
  collectDefaultMetrics({ register: registry });
  for (const name of WALK_EVERY_HANDLE) registry.removeSingleMetric(name);
  if (process.platform === 'linux') {
    new Gauge({
      name: 'process_open_fds',
      help: 'Number of open file descriptors.',
      registers: [registry],
      async collect() {
        // minus the descriptor readdir itself held
        this.set((await readdir('/proc/self/fd').catch(() => [''])).length - 1);
      },
    });
  }
  return registry;
}
