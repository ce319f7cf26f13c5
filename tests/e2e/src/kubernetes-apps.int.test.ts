import { afterAll, beforeAll, expect, test } from 'vitest';
import { spawnApp, startRedis, startS3, uniqueName, type AppProcess, type RedisHandle, type S3Handle } from '@relay/testkit';
import { render } from './kubernetes/render.js';
import { container, envOf, ownSecrets } from './kubernetes/env.js';
import { TARGET_LABELS, exposition, groupingLabels, matches, selectors } from './kubernetes/promql.js';

/**
 * The api and the worker started on the example overlay's settings (its ConfigMaps, and secrets
 * of one's own in place of the placeholders), with only the outside addresses swapped for local
 * ones: each probe and scrape path the manifests name must answer on the port it names, and
 * every series the ScaledObject asks Prometheus for must be one the api exports.
 */

const rendered = render('overlays/example');
const DEPLOYMENTS = { 'relay-api': 'api', 'relay-worker': 'worker' } as const;

let redis: RedisHandle;
let s3: S3Handle;
const apps: Partial<Record<keyof typeof DEPLOYMENTS, AppProcess>> = {};

beforeAll(async () => {
  [redis, s3] = await Promise.all([startRedis(), startS3()]);
  const local = {
    ...s3.env,
    REDIS_URL: redis.url,
    // the kit's hash tag, under a name of this test's own
    REDIS_PREFIX: `{${uniqueName('k8s')}}`,
    // on this machine, not the pod's every address; any free port
    HOST: '127.0.0.1',
    PORT: '0',
    METRICS_PORT: '0',
  };
  await Promise.all(
    Object.entries(DEPLOYMENTS).map(async ([deployment, app]) => {
      const env = envOf(rendered, container(rendered, deployment), ownSecrets);
      // only what the pod is given (and the local addresses): the app's own loader and startup decide
      const given = Object.fromEntries(
        Object.keys(env).map((name) => [name, Object.hasOwn(local, name) ? local[name as keyof typeof local] : env[name]]),
      );
      apps[deployment as keyof typeof DEPLOYMENTS] = await spawnApp(app, given);
    }),
  );
}, 90_000);

afterAll(async () => {
  await Promise.all(Object.values(apps).map((app) => app.stop()));
  await Promise.all([redis?.close(), s3?.close()]);
});

const url = (deployment: keyof typeof DEPLOYMENTS, path: string) => new URL(path, apps[deployment]!.ready.url).toString();

test.each(Object.keys(DEPLOYMENTS) as Array<keyof typeof DEPLOYMENTS>)(
  '%s answers every probe the manifest gives it',
  async (deployment) => {
    const c = container(rendered, deployment);
    const probes = [c.livenessProbe, c.readinessProbe, c.startupProbe].map((probe) => probe?.httpGet?.path);
    expect(probes).not.toContain(undefined);
    for (const path of probes) expect((await fetch(url(deployment, path!))).status, `${deployment} ${path}`).toBe(200);
  },
);

test('each ServiceMonitor scrapes a path its app serves in the Prometheus format', async () => {
  for (const monitor of rendered.all('ServiceMonitor')) {
    const deployment = monitor.metadata.name as keyof typeof DEPLOYMENTS;
    for (const endpoint of monitor.spec.endpoints ?? []) {
      const answer = await fetch(url(deployment, endpoint.path!));
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(await answer.text()).toMatch(/^# HELP /m);
    }
  }
});

test('every series the ScaledObject queries is exported by the api, with the labels the query reads', async () => {
  const series = exposition(await (await fetch(url('relay-api', '/metrics'))).text());
  for (const trigger of rendered.one('ScaledObject', 'relay-worker').spec.triggers) {
    const query = trigger.metadata.query!;
    for (const selector of selectors(query)) {
      const own = selector.matchers.filter((m) => !TARGET_LABELS.has(m.label));
      const found = series.filter((s) => s.metric === selector.metric && own.every((m) => matches(s.labels[m.label], m)));
      expect(found.length, `${selector.metric} in ${query}`).toBeGreaterThan(0);
      // each value a regex matcher lists is one the api reports (a misspelt state matches nothing, silently)
      for (const m of own.filter((m) => m.op === '=~' && /^[\w|]+$/.test(m.value))) {
        for (const value of m.value.split('|'))
          expect(
            found.map((s) => s.labels[m.label]),
            `${m.label}="${value}"`,
          ).toContain(value);
      }
      for (const label of groupingLabels(query))
        expect(
          found.every((s) => Object.hasOwn(s.labels, label)),
          `by ${label}`,
        ).toBe(true);
    }
  }
});
