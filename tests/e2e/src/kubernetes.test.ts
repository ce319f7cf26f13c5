import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { IContainer } from 'kubernetes-models/v1';
import { apiEnvSchema, loadApiConfig } from '@relay/api';
import { ConfigError, loadCatalog } from '@relay/core';
import { repoRoot } from '@relay/testkit';
import { loadWorkerConfig, workerEnvSchema } from '@relay/worker';
import { kubectlKustomize, parseObjects, render, type KubeObject, type Rendered } from './kubernetes/render.js';
import { schemaFaults } from './kubernetes/schemas.js';
import { container, envOf, envSources, ownSecrets, secretValue } from './kubernetes/env.js';

/**
 * deploy/kubernetes cannot be applied here (no cluster), so it is held to what a cluster and the
 * apps would hold it to: rendered by kustomize, every object must pass its kind's schema
 * (Kubernetes' OpenAPI, KEDA's and the Prometheus Operator's CRDs) with no unknown field, give
 * each app only variables it reads and that its loader accepts, and point at objects, ports and
 * settings that exist. kubernetes-scaling.test.ts holds the grace periods and the autoscalers to
 * the apps' timeouts; kubernetes-apps.int.test.ts runs the apps on the rendered settings.
 */

const TARGETS = ['base', 'overlays/example'];

/** What each app reads: its schema, and for the worker the upstreams' variables the catalog names. */
const upstreamVars = Object.values(loadCatalog({}).upstreams).flatMap((u) => [u.apiKeyEnv, ...(u.baseUrlEnv ? [u.baseUrlEnv] : [])]);
const APPS = {
  'relay-api': {
    entry: 'api',
    reads: new Set(Object.keys(apiEnvSchema.shape)),
    refused: ['ADMIN_TOKEN', 'S3_SECRET_ACCESS_KEY', 'CHANNEL_SECRET'],
  },
  'relay-worker': {
    entry: 'worker',
    reads: new Set([...Object.keys(workerEnvSchema.shape), ...upstreamVars]),
    refused: ['S3_SECRET_ACCESS_KEY', 'CHANNEL_SECRET'],
  },
} as const;
const DEPLOYMENTS = Object.keys(APPS) as Array<keyof typeof APPS>;

/** The bundles scripts/build.mjs makes (the image's dist/<name>.mjs). */
const buildEntries = [...readFileSync(join(repoRoot, 'scripts/build.mjs'), 'utf8').matchAll(/^\s*(\w+): '[\w/.-]+\.ts',$/gm)].map(
  (m) => m[1],
);

const podLabels = (rendered: Rendered, deployment: string) => rendered.one('Deployment', deployment).spec?.template.metadata?.labels ?? {};
const selects = (selector: Record<string, string> | undefined, labels: Record<string, string>) =>
  !!selector && Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);
const portNumber = (c: IContainer, name: string | number | undefined) => c.ports?.find((p) => p.name === name)?.containerPort;

describe.each(TARGETS)('deploy/kubernetes/%s', (target) => {
  const rendered = render(target);

  test('every object passes the schema of its kind, with no field the schema does not know', () => {
    expect(rendered.objects.flatMap(schemaFaults)).toEqual([]);
    const kinds = rendered.objects.map((o) => `${o.kind}/${o.metadata.name.replace(/-[a-z0-9]{10}$/, '')}`).sort();
    for (const expected of [
      'Deployment/relay-api',
      'Service/relay-api',
      'HorizontalPodAutoscaler/relay-api',
      'PodDisruptionBudget/relay-api',
      'ServiceMonitor/relay-api',
      'ConfigMap/relay-api',
      'Deployment/relay-worker',
      'Service/relay-worker',
      'ScaledObject/relay-worker',
      'PodDisruptionBudget/relay-worker',
      'ServiceMonitor/relay-worker',
      'ConfigMap/relay-worker',
      'ConfigMap/relay-common',
      'Secret/relay-secrets',
      'Secret/relay-upstream-keys',
    ])
      expect(kinds).toContain(expected);
    // one namespace for all: the ScaledObject's queries name it
    expect(new Set(rendered.objects.filter((o) => o.kind !== 'Namespace').map((o) => o.metadata.namespace)).size).toBe(1);
  });

  test.each(DEPLOYMENTS)('%s is given only variables its app reads, each once, from Secrets that hold them', (deployment) => {
    const sources = envSources(rendered, container(rendered, deployment));
    const names = sources.map(([name]) => name);
    expect(names.filter((name) => !APPS[deployment].reads.has(name))).toEqual([]);
    expect(names.filter((name, i) => names.indexOf(name) !== i)).toEqual([]);
    // compose's escape hatch from the placeholder check has no business in a cluster
    expect(names).not.toContain('RELAY_COMPOSE_PROFILES');
    for (const [name, source] of sources) {
      // even an optional key is in the example Secret, so nobody has to guess its name
      if (source.from === 'secret') expect(secretValue(rendered, source.secret, source.key), `${name} in ${source.secret}`).toBeDefined();
    }
    // without it the pods would look for Redis on their own loopback: the pod must not start
    expect(sources.find(([name]) => name === 'REDIS_URL')?.[1]).toMatchObject({ from: 'secret', optional: false });
  });

  test("the apps refuse the example Secrets' placeholders, and start on secrets of one's own, listening where the pod is reached", () => {
    const api = container(rendered, 'relay-api');
    const worker = container(rendered, 'relay-worker');
    const refusal = (names: readonly string[]) => new RegExp(names.map((n) => `${n}: still the placeholder`).join('[\\s\\S]*'));
    expect(() => loadApiConfig(envOf(rendered, api))).toThrow(ConfigError);
    expect(() => loadApiConfig(envOf(rendered, api))).toThrow(refusal(APPS['relay-api'].refused));
    expect(() => loadWorkerConfig(envOf(rendered, worker))).toThrow(refusal(APPS['relay-worker'].refused));

    const apiConfig = loadApiConfig(envOf(rendered, api, ownSecrets));
    expect(apiConfig.HOST).toBe('0.0.0.0');
    expect(apiConfig.PORT).toBe(portNumber(api, 'http'));
    const workerConfig = loadWorkerConfig(envOf(rendered, worker, ownSecrets));
    expect(workerConfig.HOST).toBe('0.0.0.0');
    expect(workerConfig.METRICS_PORT).toBe(portNumber(worker, 'ops'));
    for (const config of [apiConfig, workerConfig]) expect(new URL(config.REDIS_URL).hostname).not.toMatch(/^(127\.|localhost$)/);
    // the same settings on a Redis Cluster: the prefix carries its hash tag
    const cluster = { REDIS_URL: 'redis+cluster://redis.example.com:6379' };
    expect(() => loadApiConfig({ ...envOf(rendered, api, ownSecrets), ...cluster })).not.toThrow();
    expect(() => loadWorkerConfig({ ...envOf(rendered, worker, ownSecrets), ...cluster })).not.toThrow();
    expect(loadCatalog(envOf(rendered, worker, ownSecrets)).upstreams).toBeDefined();
  });

  test.each(DEPLOYMENTS)('%s runs its bundle and is probed on its own port: liveness never on a dependency', (deployment) => {
    const c = container(rendered, deployment);
    const entry = APPS[deployment].entry;
    expect(buildEntries).toContain(entry);
    expect(c.command?.at(-1)).toBe(`dist/${entry}.mjs`);
    expect(c.command?.[0]).toBe('node');
    expect(c.ports).toHaveLength(1);
    const port = c.ports![0]!.name;
    expect(c.livenessProbe?.httpGet).toEqual({ path: '/healthz', port });
    expect(c.startupProbe?.httpGet).toEqual({ path: '/healthz', port });
    // /readyz asks Redis and the store: an outage takes pods out of rotation, it does not restart them
    expect(c.readinessProbe?.httpGet).toEqual({ path: '/readyz', port });
  });

  test('Services, budgets, autoscalers and ServiceMonitors select the pods and ports that exist', () => {
    for (const deployment of DEPLOYMENTS) {
      const labels = podLabels(rendered, deployment);
      const c = container(rendered, deployment);
      const d = rendered.one('Deployment', deployment);
      expect(selects(d.spec?.selector.matchLabels, labels)).toBe(true);
      // the autoscalers own the count
      expect(d.spec?.replicas).toBeUndefined();
      const service = rendered.one('Service', deployment);
      expect(selects(service.spec?.selector, labels)).toBe(true);
      for (const port of service.spec?.ports ?? []) expect(portNumber(c, port.targetPort)).toBeDefined();
      const pdb = rendered.one('PodDisruptionBudget', deployment);
      expect(selects(pdb.spec?.selector?.matchLabels, labels)).toBe(true);
      // a budget never blocks every eviction, and one pod left always serves
      expect(pdb.spec?.maxUnavailable).toBe(1);
      const monitors = rendered.all('ServiceMonitor').filter((m) => selects(m.spec.selector.matchLabels, service.metadata.labels ?? {}));
      expect(monitors).toHaveLength(1);
      const servicePorts = (service.spec?.ports ?? []).map((p) => p.name);
      for (const endpoint of monitors[0]!.spec.endpoints ?? []) {
        expect(servicePorts).toContain(endpoint.port);
        expect(endpoint.path).toBe('/metrics');
      }
    }
    const hpa = rendered.one('HorizontalPodAutoscaler', 'relay-api');
    expect(hpa.spec?.scaleTargetRef).toMatchObject({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'relay-api' });
    expect(hpa.spec?.minReplicas).toBeGreaterThanOrEqual(2);
    expect(hpa.spec?.maxReplicas).toBeGreaterThanOrEqual(hpa.spec?.minReplicas ?? 1);
    expect(hpa.spec?.metrics?.map((m) => m.resource?.name)).toEqual(['cpu']);
    const scaled = rendered.one('ScaledObject', 'relay-worker');
    expect(scaled.spec.scaleTargetRef.name).toBe('relay-worker');
    expect(scaled.spec.minReplicaCount).toBeGreaterThanOrEqual(2);
    expect(scaled.spec.maxReplicaCount).toBeGreaterThanOrEqual(scaled.spec.minReplicaCount!);
  });

  test.each(DEPLOYMENTS)('%s runs as a non-root user on a read-only root filesystem, with resources', (deployment) => {
    const pod = rendered.one('Deployment', deployment).spec?.template.spec;
    expect(pod?.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: 'RuntimeDefault' } });
    expect(pod?.automountServiceAccountToken).toBe(false);
    const c = container(rendered, deployment);
    expect(c.securityContext).toMatchObject({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
    // the HPA's CPU utilisation is relative to the request
    expect(c.resources?.requests).toHaveProperty('cpu');
    expect(c.resources?.requests).toHaveProperty('memory');
    expect(c.resources?.limits).toHaveProperty('memory');
    const image = c.image ?? '';
    if (target === 'base') expect(image).toBe('relay');
    else expect(image).toMatch(/^[\w.-]+(:\d+)?\/[\w./-]+:(?!latest$)[\w.-]+$/);
  });
});

// the image's `node` user is uid 1000 in the official Node images
test('the image runs as the node user the manifests name by number', () => {
  expect(readFileSync(join(repoRoot, 'Dockerfile'), 'utf8')).toMatch(/^USER node$/m);
});

test('the overlay changes what it says it changes', () => {
  const base = render('base');
  const example = render('overlays/example');
  const api = (r: Rendered) => envOf(r, container(r, 'relay-api'));
  expect(api(example).PUBLIC_URL).not.toBe(api(base).PUBLIC_URL);
  expect(example.one('ScaledObject', 'relay-worker').spec.maxReplicaCount).not.toBe(
    base.one('ScaledObject', 'relay-worker').spec.maxReplicaCount,
  );
  expect(example.all('ServiceMonitor').every((m) => m.metadata.labels?.release)).toBe(true);
});

test.skipIf(!kubectlKustomize.available).each(TARGETS)("kubectl's kustomize renders %s to the same objects", (target) => {
  const byName = (objects: KubeObject[]) => objects.map((o) => JSON.stringify(o)).sort();
  expect(byName(parseObjects(kubectlKustomize.build(join(repoRoot, 'deploy/kubernetes', target))))).toEqual(byName(render(target).objects));
});

test('the schema check finds a misspelt field, a value of the wrong type and a missing one', () => {
  const d = structuredClone(render('base').one('Deployment', 'relay-api')) as unknown as KubeObject & {
    spec: { replica?: number; template: { spec: { terminationGracePeriodSeconds: unknown; containers: Array<Record<string, unknown>> } } };
  };
  d.spec.replica = 2;
  d.spec.template.spec.containers[0]!.readinesProbe = d.spec.template.spec.containers[0]!.readinessProbe;
  expect(schemaFaults(d).sort()).toEqual([
    'Deployment relay-api: unknown field spec.replica',
    'Deployment relay-api: unknown field spec.template.spec.containers.0.readinesProbe',
  ]);
  d.spec.template.spec.terminationGracePeriodSeconds = '45';
  expect(schemaFaults(d).join()).toMatch(/terminationGracePeriodSeconds must be integer/);
  const scaled = structuredClone(render('base').one('ScaledObject', 'relay-worker')) as unknown as KubeObject & {
    spec: { triggers: Array<{ type?: string }> };
  };
  delete scaled.spec.triggers[0]!.type;
  expect(schemaFaults(scaled).join()).toMatch(/triggers\/0 must have required property type/);
});
