import { collectDefaultMetrics, Registry } from 'prom-client';

/** One Prometheus registry per process, with Node's own metrics (CPU, memory, event-loop lag). */
export function createMetricsRegistry(app: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ app });
  collectDefaultMetrics({ register: registry });
  return registry;
}
