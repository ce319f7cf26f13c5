import { describe, expect, test } from 'vitest';
import { copiedWorkspaces, dockerStages, inherited } from './manifests/dockerfile.js';
import { deniedIn } from './manifests/advisories.js';
import { installedBy, nameAt, readLock, resolveIn, type Lock } from './manifests/lockfile.js';
import { IMAGE_APPS, isTestOnly, TEST_TOOLS } from './manifests/roles.js';
import { readManifest, workspaces } from './manifests/workspaces.js';
import { BUNDLED } from '../../../scripts/bundled.mjs';

/**
 * The Docker image gets its node_modules from a production install (`npm ci --omit=dev`) over
 * the manifests of what it runs. Docker does not run here: the install is read from the
 * Dockerfile and resolved against package-lock.json the way npm ci reifies it.
 */
const stages = dockerStages();
const image = stages.at(-1)!;
const nodeModulesCopies = image.lines.filter((line) => /^COPY\s+--from=\S+.*\bnode_modules\b/.test(line));
const installStage = /--from=(\S+)/.exec(nodeModulesCopies[0] ?? '')?.[1] ?? '';
const installLines = inherited(stages, installStage);
// an environment assignment may precede it (SKIP_FFMPEG=true npm ci ...)
const install = installLines.find((line) => /^RUN\s+(?:\w+=\S+\s+)*npm\s+ci\b/.test(line)) ?? '';
const present = copiedWorkspaces(installLines);
const lock = readLock();
const installed = installedBy(lock, { workspaces: present, omitDev: /--omit=dev\b/.test(install) });
const testPackages = new Set([
  ...TEST_TOOLS,
  ...workspaces()
    .filter((ws) => isTestOnly(ws.dir))
    .map((ws) => ws.manifest.name),
]);

describe('the image', () => {
  test('takes its node_modules from one stage, whose npm ci omits devDependencies', () => {
    expect(nodeModulesCopies).toHaveLength(1);
    expect(install).toMatch(/^RUN (?:\w+=\S+ )*npm ci .*--omit=dev\b/);
  });

  test('installs for what it runs (api, worker, simulator, batch CLI) and the workspace packages they use, no other workspace', () => {
    const byName = new Map(workspaces().map((ws) => [ws.manifest.name, ws.dir]));
    const needed = new Set<string>();
    const visit = (dir: string) => {
      if (needed.has(dir)) return;
      needed.add(dir);
      for (const dep of Object.keys(readManifest(dir).dependencies ?? {})) if (byName.has(dep)) visit(byName.get(dep)!);
    };
    IMAGE_APPS.forEach(visit);
    expect([...present].sort()).toEqual([...needed].sort());
  });

  test('holds no test package, and nothing that only devDependencies reach', () => {
    expect(installed.size).toBeGreaterThan(50);
    expect([...installed].map(nameAt).filter((name) => testPackages.has(name))).toEqual([]);
    expect([...installed].filter((path) => lock.packages[path]!.dev)).toEqual([]);
  });

  test('holds each package the bundles leave external once, at the root of node_modules, where dist/*.mjs finds it', () => {
    // scripts/build.mjs leaves every third-party runtime dependency external: /app/dist resolves it from /app/node_modules
    const misplaced = present.flatMap((dir) =>
      Object.keys(readManifest(dir).dependencies ?? {})
        .filter((name) => !name.startsWith('@relay/') && !BUNDLED.includes(name))
        .filter((name) => resolveIn(lock, dir, name) !== `node_modules/${name}` || !installed.has(`node_modules/${name}`))
        .map((name) => `${dir}: ${name} at ${resolveIn(lock, dir, name)}`),
    );
    expect(misplaced).toEqual([]);
  });

  test('holds no package at a version on the deny-list of known advisories (ip <= 2.0.1, ...)', () => {
    expect(deniedIn(lock, installed)).toEqual([]);
  });
});

test('the deny-list check finds a denied version wherever it is nested, and passes a fixed one', () => {
  const planted: Lock = {
    packages: {
      'node_modules/werift/node_modules/ip': { version: '2.0.1' },
      'node_modules/ip': { version: '2.0.2' },
      'node_modules/dicer': { version: '0.3.0' },
      'node_modules/fast-xml-parser': { version: '5.12.1' },
      'node_modules/s3rver/node_modules/fast-xml-parser': { version: '5.3.4' },
      'node_modules/koa': { version: '3.1.2' },
    },
  };
  expect(deniedIn(planted, Object.keys(planted.packages))).toEqual([
    expect.stringMatching(/^node_modules\/werift\/node_modules\/ip@2\.0\.1: GHSA-2p57-rm9w-gvfp/),
    expect.stringMatching(/^node_modules\/dicer@0\.3\.0: CVE-2022-24434/),
    expect.stringMatching(/^node_modules\/s3rver\/node_modules\/fast-xml-parser@5\.3\.4: CVE-2026-25128/),
  ]);
});

test('the production tree (every package of the lockfile a production install brings, npm start included) holds no denied version', () => {
  const production = Object.entries(lock.packages).filter(([path, entry]) => path.includes('node_modules/') && !entry.dev);
  expect(production.length).toBeGreaterThan(200);
  expect(
    deniedIn(
      lock,
      production.map(([path]) => path),
    ),
  ).toEqual([]);
});
