import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadApiConfig } from '@relay/api';
import { repoRoot } from '@relay/testkit';
import { loadWorkerConfig } from '@relay/worker';
import { render } from './kubernetes/render.js';
import { container, envOf, ownSecrets } from './kubernetes/env.js';
import { TARGET_LABELS, groupingLabels, selectors } from './kubernetes/promql.js';

/**
 * The kit's grace periods and autoscalers against the apps' own timeouts and metrics: a pod
 * killed before its app's shutdown deadline cuts requests and jobs short, and a ScaledObject
 * querying a metric nobody exports scales on nothing.
 */

/**
 * After SHUTDOWN_GRACE_MS the api answers the requests still waiting with 202 and gives those
 * answers a last few seconds to go out (apps/api/src/server.ts close()).
 */
const apiLastDrainMs = (() => {
  const source = readFileSync(join(repoRoot, 'apps/api/src/server.ts'), 'utf8');
  const found = /lifecycle\.stopWaiting\(\);\s*await Promise\.race\(\[drained, sleep\(([\d_]+)/.exec(source);
  if (!found) throw new Error("apps/api/src/server.ts: the api's shutdown changed; hold the kit's grace period to it again");
  return Number(found[1]!.replaceAll('_', ''));
})();

/** The prometheus scaler's metadata (keda.sh/docs/scalers/prometheus): anything else is a typo KEDA ignores. */
const PROMETHEUS_SCALER_KEYS = new Set([
  'serverAddress',
  'query',
  'threshold',
  'activationThreshold',
  'namespace',
  'customHeaders',
  'ignoreNullValues',
  'queryParameters',
  'unsafeSsl',
  'timeout',
]);

describe.each(['base', 'overlays/example'])('deploy/kubernetes/%s', (target) => {
  const rendered = render(target);
  const api = container(rendered, 'relay-api');
  const worker = container(rendered, 'relay-worker');
  const apiConfig = loadApiConfig(envOf(rendered, api, ownSecrets));
  const workerConfig = loadWorkerConfig(envOf(rendered, worker, ownSecrets));
  const pod = (name: string) => rendered.one('Deployment', name).spec!.template.spec!;
  const preStopMs = (c: typeof api) => (c.lifecycle?.preStop?.sleep?.seconds ?? 0) * 1000;

  test("the api's pod outlives its preStop pause, SHUTDOWN_GRACE_MS and the last answers' drain", () => {
    const graceMs = (pod('relay-api').terminationGracePeriodSeconds ?? 30) * 1000;
    expect(preStopMs(api)).toBeGreaterThan(0);
    expect(graceMs).toBeGreaterThan(preStopMs(api) + apiConfig.SHUTDOWN_GRACE_MS + apiLastDrainMs);
  });

  test("the worker's SHUTDOWN_GRACE_MS holds the longest upstream call and its result's download, and its pod outlives that", () => {
    // tuning.worker.upstreamTimeoutMs overrides every upstream's own timeout (apps/worker/src/channels/config-channels.ts)
    const calls = Object.values(workerConfig.catalog.upstreams).map((u) => workerConfig.tuning.upstreamTimeoutMs ?? u.timeoutMs);
    const longestCallMs = Math.max(...calls);
    expect(workerConfig.SHUTDOWN_GRACE_MS).toBeGreaterThanOrEqual(longestCallMs + workerConfig.tuning.resultDownloadTimeoutMs);
    // at SIGTERM the worker first lets its webhook deliveries end, then waits SHUTDOWN_GRACE_MS for its jobs
    const graceMs = (pod('relay-worker').terminationGracePeriodSeconds ?? 30) * 1000;
    expect(graceMs).toBeGreaterThan(preStopMs(worker) + workerConfig.tuning.webhookTimeoutMs + workerConfig.SHUTDOWN_GRACE_MS);
  });

  test("KEDA asks Prometheus for this install's api metrics, with thresholds a worker's concurrency absorbs", () => {
    const scaled = rendered.one('ScaledObject', 'relay-worker');
    const triggers = scaled.spec.triggers;
    expect(triggers.map((t) => t.type)).toEqual(triggers.map(() => 'prometheus'));
    const queries = triggers.map((t) => t.metadata.query ?? '');
    // the relay's own count of the jobs parked in its fair schedule, which BullMQ's lists miss
    expect(queries.flatMap(selectors).map((s) => s.metric)).toContain('relay_pending_jobs');

    // the figures come from the api pods (the process that holds the schedulers exports them)
    const apiService = rendered.all('Service').filter((s) => s.spec?.selector?.['app.kubernetes.io/component'] === 'api');
    expect(apiService.map((s) => s.metadata.name)).toHaveLength(1);
    expect(api.command?.at(-1)).toBe('dist/api.mjs');
    for (const trigger of triggers) {
      const metadata = trigger.metadata;
      expect(Object.keys(metadata).filter((key) => !PROMETHEUS_SCALER_KEYS.has(key))).toEqual([]);
      expect(new URL(metadata.serverAddress!).protocol).toMatch(/^https?:$/);
      // no answer means a broken scrape: the fallback holds the fleet, not a silent zero
      expect(metadata.ignoreNullValues).toBe('false');
      for (const selector of selectors(metadata.query!)) {
        const label = (name: string) => selector.matchers.find((m) => m.label === name && m.op === '=')?.value;
        expect(label('namespace'), selector.metric).toBe(scaled.metadata.namespace);
        expect(label('service'), selector.metric).toBe(apiService[0]!.metadata.name);
      }
      // each api pod reports the same figures from Redis: they are read once (max by), never summed across pods
      expect(metadata.query).toMatch(/max by \(/);
      expect(groupingLabels(metadata.query!).filter((l) => TARGET_LABELS.has(l))).toEqual([]);

      // one worker more takes at least a threshold's worth of jobs
      const threshold = Number(metadata.threshold);
      expect(threshold).toBeGreaterThan(0);
      expect(threshold).toBeLessThanOrEqual(workerConfig.WORKER_CONCURRENCY);
    }
    const fallback = scaled.spec.fallback;
    expect(fallback?.replicas).toBeGreaterThanOrEqual(scaled.spec.minReplicaCount!);
    expect(fallback?.replicas).toBeLessThanOrEqual(scaled.spec.maxReplicaCount!);
  });
});
