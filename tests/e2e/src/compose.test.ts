import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { describe, expect, test } from 'vitest';
import { apiEnvSchema, loadApiConfig } from '@relay/api';
import { ConfigError, loadCatalog } from '@relay/core';
import { simulatorEnvSchema } from '@relay/simulator';
import { repoRoot } from '@relay/testkit';
import { loadWorkerConfig, workerEnvSchema } from '@relay/worker';
import { workspaces } from './manifests/workspaces.js';

/**
 * docker-compose.yml cannot run here (no engine), so it is held to what it hands each service:
 * rendered by docker-compose itself from .env.example, each relay service's environment must
 * parse with that app's own config loader, name no variable the app does not read, and point
 * at services and ports that exist in the file.
 */
const hasCompose = (() => {
  try {
    execFileSync('docker-compose', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (!hasCompose && process.env.CI) throw new Error('docker-compose is missing: .ci/run installs it');

type Service = {
  image?: string;
  environment?: Record<string, string | number | boolean | null>;
  ports?: Array<string | { target: number; published: string | number }>;
  healthcheck?: { test: string[] };
  volumes?: unknown[];
  profiles?: string[];
  command?: string[] | string;
};
type Rendered = { services: Record<string, Service> };

const envExample = readFileSync(join(repoRoot, '.env.example'), 'utf8');
const envLines = envExample.split('\n').filter((l) => /^[A-Z0-9_]+=/.test(l));
const exampleVars = envLines.map((l) => l.slice(0, l.indexOf('=')));

/** What docs/compose.md tells a newcomer to set in .env to try the relay against the simulator. */
const SIMULATOR_SETTINGS: Record<string, string> = {
  COMPOSE_PROFILES: 'simulator',
  ARK_BASE_URL: 'http://simulator:4010/api/v3',
  ARK_API_KEY: 'sim-key',
  GEMINI_BASE_URL: 'http://simulator:4010',
  GEMINI_API_KEY: 'sim-key',
  URL_ALLOWLIST: 'simulator:4010',
};

function render(overrides: Record<string, string> = {}): Rendered {
  const dir = mkdtempSync(join(tmpdir(), 'relay-compose-'));
  const file = join(dir, '.env');
  const lines = envLines.map((l) => {
    const name = l.slice(0, l.indexOf('='));
    return Object.hasOwn(overrides, name) ? `${name}=${overrides[name]}` : l;
  });
  writeFileSync(file, lines.join('\n'));
  const profile = overrides.COMPOSE_PROFILES ? ['--profile', overrides.COMPOSE_PROFILES] : [];
  const yaml = execFileSync('docker-compose', ['--env-file', file, ...profile, '-f', join(repoRoot, 'docker-compose.yml'), 'config'], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '' },
  });
  return parseYaml(yaml) as Rendered;
}

/** The environment as a process would see it: every value a string, null (unset) left out. */
const envOf = (service: Service) =>
  Object.fromEntries(
    Object.entries(service.environment ?? {})
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, String(v)]),
  );

const hostPort = (url: string) => {
  const u = new URL(url);
  return { host: u.hostname, port: Number(u.port || (u.protocol === 'https:' ? 443 : 80)) };
};

/** The port a healthcheck's command fetches on 127.0.0.1. */
const healthPort = (service: Service) => Number(/127\.0\.0\.1:(\d+)/.exec(service.healthcheck?.test.join(' ') ?? '')?.[1]);

describe.skipIf(!hasCompose)('docker-compose.yml rendered from .env.example', () => {
  const plain = render();
  const simulator = render(SIMULATOR_SETTINGS);

  test('no image from the removed MinIO repositories; every image pinned to a version', () => {
    for (const rendered of [plain, simulator]) {
      for (const [name, service] of Object.entries(rendered.services)) {
        expect(service.image, name).toBeDefined();
        expect(service.image, name).not.toMatch(/^minio\//);
        if (service.image !== 'relay:local') expect(service.image, name).toMatch(/:(?!latest$)[\w.-]+$/);
      }
    }
    expect(readFileSync(join(repoRoot, 'docker-compose.yml'), 'utf8')).not.toMatch(/minio/i);
  });

  test("each relay service's environment is exactly what its app reads, and parses with its loader", () => {
    const apiKeys = new Set(Object.keys(apiEnvSchema.shape));
    // besides its schema the worker reads each upstream's base URL and key from the variables the catalog names
    const upstreamVars = Object.values(loadCatalog({}).upstreams).flatMap((u) => [u.apiKeyEnv, ...(u.baseUrlEnv ? [u.baseUrlEnv] : [])]);
    const workerKeys = new Set([...Object.keys(workerEnvSchema.shape), ...upstreamVars]);
    const simKeys = new Set(Object.keys(simulatorEnvSchema.shape));
    for (const rendered of [plain, simulator]) {
      expect(Object.keys(envOf(rendered.services.api!)).filter((k) => !apiKeys.has(k))).toEqual([]);
      expect(Object.keys(envOf(rendered.services.worker!)).filter((k) => !workerKeys.has(k))).toEqual([]);
    }
    expect(Object.keys(envOf(simulator.services.simulator!)).filter((k) => !simKeys.has(k))).toEqual([]);

    // the simulator profile runs on the placeholders as shipped; anything else refuses them
    const api = loadApiConfig(envOf(simulator.services.api!));
    expect(api.HOST).toBe('0.0.0.0');
    expect(api.ADMIN_TOKEN).toBe('change-me-admin-token-of-at-least-32-characters');
    loadWorkerConfig(envOf(simulator.services.worker!));
    expect(() => loadApiConfig(envOf(plain.services.api!))).toThrow(ConfigError);
    expect(() => loadApiConfig(envOf(plain.services.api!))).toThrow(
      /ADMIN_TOKEN: still the placeholder[\s\S]*S3_SECRET_ACCESS_KEY: still the placeholder/,
    );
    expect(() => loadWorkerConfig(envOf(plain.services.worker!))).toThrow(/S3_SECRET_ACCESS_KEY: still the placeholder/);

    const own = render({ ADMIN_TOKEN: 'a'.repeat(32), S3_SECRET_ACCESS_KEY: 'b'.repeat(32) });
    expect(loadApiConfig(envOf(own.services.api!)).ADMIN_TOKEN).toBe('a'.repeat(32));
    expect(loadWorkerConfig(envOf(own.services.worker!)).S3_CREATE_BUCKET).toBe(true);
  });

  test('every address a service is handed names a service of the file and a port it listens on', () => {
    const services = simulator.services;
    const listens = (name: string, port: number) => {
      expect(services[name], `no service ${name}`).toBeDefined();
      const own = envOf(services[name]!);
      const ports: Record<string, number> = {
        redis: 6379,
        store: Number(/:(\d+)$/.exec(own.RUSTFS_ADDRESS ?? '')?.[1]),
        simulator: Number(own.SIM_PORT),
      };
      expect(ports[name], `${name} listens on`).toBe(port);
    };
    for (const app of ['api', 'worker']) {
      const env = envOf(services[app]!);
      const redis = hostPort(env.REDIS_URL!);
      listens(redis.host, redis.port);
      const store = hostPort(env.S3_ENDPOINT!);
      listens(store.host, store.port);
    }
    const worker = envOf(services.worker!);
    for (const url of [worker.ARK_BASE_URL!, worker.GEMINI_BASE_URL!]) {
      const upstream = hostPort(url);
      listens(upstream.host, upstream.port);
      // the worker may reach the simulator although it is a private address
      expect(worker.URL_ALLOWLIST!.split(',')).toContain(`${upstream.host}:${upstream.port}`);
    }
    // the links the simulator hands out name an address the worker reaches (not 0.0.0.0)
    const sim = envOf(services.simulator!);
    const links = hostPort(sim.SIM_PUBLIC_URL!);
    listens(links.host, links.port);
    expect(sim.SIM_API_KEYS!.split(',')).toContain(worker.ARK_API_KEY);
    // the store answers with the secret the relay signs with
    expect(envOf(services.store!).RUSTFS_SECRET_KEY).toBe(worker.S3_SECRET_ACCESS_KEY);
    expect(envOf(services.store!).RUSTFS_ACCESS_KEY).toBe(worker.S3_ACCESS_KEY_ID);
  });

  test('healthchecks and published ports follow PORT and METRICS_PORT', () => {
    const moved = render({
      PORT: '9090',
      METRICS_PORT: '9999',
      RELAY_PORT: '18080',
      ADMIN_TOKEN: 'x'.repeat(32),
      S3_SECRET_ACCESS_KEY: 'y'.repeat(32),
    });
    for (const rendered of [plain, moved]) {
      const api = envOf(rendered.services.api!);
      const worker = envOf(rendered.services.worker!);
      expect(healthPort(rendered.services.api!)).toBe(Number(api.PORT));
      expect(healthPort(rendered.services.worker!)).toBe(Number(worker.METRICS_PORT));
      const published = rendered.services.api!.ports!.map((p) => (typeof p === 'string' ? Number(p.split(':').at(-1)) : p.target));
      expect(published).toEqual([Number(api.PORT)]);
    }
    expect(healthPort(simulator.services.simulator!)).toBe(Number(envOf(simulator.services.simulator!).SIM_PORT));
  });

  test('RELAY_CONFIG files live in the mounted ./config', () => {
    for (const app of ['api', 'worker']) {
      expect(plain.services[app]!.volumes?.map(String).join(' ')).toMatch(/config:\/app\/config/);
    }
    expect(existsSync(join(repoRoot, 'config'))).toBe(true);
  });
});

describe.skipIf(!hasCompose)('the "ha" profile: Redis behind Sentinel', () => {
  const sentinels = 'redis+sentinel://sentinel-1:26379,sentinel-2:26379,sentinel-3:26379/relay';
  const ha = render({ COMPOSE_PROFILES: 'ha', REDIS_URL: sentinels, ADMIN_TOKEN: 'a'.repeat(32), S3_SECRET_ACCESS_KEY: 'b'.repeat(32) });

  test('a replica of redis and three sentinels watching it under the name the relay is given, quorum 2', () => {
    const { services } = ha;
    expect(services['redis-replica']!.command).toEqual(expect.arrayContaining(['--replicaof', 'redis', '6379']));
    const watching = ['sentinel-1', 'sentinel-2', 'sentinel-3'].map((name) => String(services[name]!.command));
    for (const command of watching) {
      expect(command).toMatch(/'sentinel monitor relay redis 6379 2'/);
      expect(command).toMatch(/'port 26379'/);
      expect(command).toMatch(/--sentinel$/);
    }
    // what the relay is given names each of them on the port they listen on, and the name they watch
    expect(new Set(sentinels.slice('redis+sentinel://'.length).split('/')[0]!.split(','))).toEqual(
      new Set(['sentinel-1:26379', 'sentinel-2:26379', 'sentinel-3:26379']),
    );
  });

  test("the relay's services take the sentinel URL and parse it", () => {
    expect(loadApiConfig(envOf(ha.services.api!)).REDIS_URL).toBe(sentinels);
    expect(loadWorkerConfig(envOf(ha.services.worker!)).REDIS_URL).toBe(sentinels);
  });
});

test('.env.example names every variable the relay reads, each once', () => {
  const duplicates = exampleVars.filter((v, i) => exampleVars.indexOf(v) !== i);
  expect(duplicates).toEqual([]);
  const read = new Set([...Object.keys(apiEnvSchema.shape), ...Object.keys(workerEnvSchema.shape)]);
  // set by compose itself from its own settings, not by hand
  read.delete('RELAY_COMPOSE_PROFILES');
  expect([...read].filter((v) => !exampleVars.includes(v))).toEqual([]);
});

// every variable and its default is held to docs/configuration.md by config-table.test.ts
test("the compose page's simulator instructions are the settings this file checks", () => {
  const page = readFileSync(join(repoRoot, 'docs/compose.md'), 'utf8');
  for (const [name, value] of Object.entries(SIMULATOR_SETTINGS)) expect(page).toContain(`${name}=${value}`);
});

test("the Dockerfile copies every workspace manifest, so the build's npm ci sees the whole lockfile", () => {
  const dockerfile = readFileSync(join(repoRoot, 'Dockerfile'), 'utf8');
  const missing = workspaces()
    .filter((ws) => ws.dir && !dockerfile.includes(`COPY ${ws.dir}/package.json ${ws.dir}/`))
    .map((ws) => ws.dir);
  expect(missing).toEqual([]);
});
