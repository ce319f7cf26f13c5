import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '@relay/testkit';
import { describe, expect, test } from 'vitest';
import { nameAt, readLock } from './manifests/lockfile.js';
import { isBuildOnly, isTestOnly, TEST_TOOLS, USED_WITHOUT_IMPORT } from './manifests/roles.js';
import { importsByFile, workspaces, type Workspace } from './manifests/workspaces.js';

/**
 * Every workspace declares what it imports, where it belongs: what runs in production in
 * `dependencies` (the Docker image installs those), what only tests need in `devDependencies`.
 */
const all = workspaces();
/** A test, or what only tests share (`*.test-support.ts`: hooks, a harness) beside the code they test. */
const isTestFile = (file: string) => /\.test(?:-support)?\.tsx?$/.test(file);
const declared = (ws: Workspace) =>
  new Set(Object.keys({ ...ws.manifest.dependencies, ...ws.manifest.devDependencies, ...ws.manifest.peerDependencies }));
const runtime = (ws: Workspace) => new Set(Object.keys(ws.manifest.dependencies ?? {}));
const label = (ws: Workspace) => ws.dir || '(root)';
const imports = new Map(all.map((ws) => [ws.dir, importsByFile(ws)]));
const importsOf = (ws: Workspace) => imports.get(ws.dir)!;
const testPackages = new Set([...TEST_TOOLS, ...all.filter((ws) => isTestOnly(ws.dir)).map((ws) => ws.manifest.name)]);

describe('imports', () => {
  test('every package a workspace imports is declared in its own package.json', () => {
    const undeclared = all.flatMap((ws) =>
      [...importsOf(ws)].flatMap(([file, names]) =>
        [...names].filter((name) => name !== ws.manifest.name && !declared(ws).has(name)).map((name) => `${file} imports ${name}`),
      ),
    );
    expect(undeclared).toEqual([]);
  });

  test("product code imports only its workspace's runtime dependencies, never a test package", () => {
    const product = all.filter((ws) => ws.dir && !isTestOnly(ws.dir) && !isBuildOnly(ws.dir));
    const misplaced = product.flatMap((ws) =>
      [...importsOf(ws)]
        .filter(([file]) => !isTestFile(file))
        .flatMap(([file, names]) =>
          [...names]
            .filter((name) => name !== ws.manifest.name && (!runtime(ws).has(name) || testPackages.has(name)))
            .map((name) => `${file} imports ${name}, ${testPackages.has(name) ? 'a test package' : 'not in dependencies'}`),
        ),
    );
    expect(misplaced).toEqual([]);
  });

  test('product code never imports a test-support file (which may import test packages)', () => {
    const product = all.filter((ws) => ws.dir && !isTestOnly(ws.dir) && !isBuildOnly(ws.dir));
    const leaks = product.flatMap((ws) =>
      [...importsOf(ws).keys()]
        .filter((file) => !isTestFile(file) && /['"][^'"\n]*\.test-support\.js['"]/.test(readFileSync(join(repoRoot, file), 'utf8')))
        .map((file) => `${file} imports a test-support file`),
    );
    expect(product.length).toBeGreaterThan(0);
    expect(leaks).toEqual([]);
  });

  test('no runtime dependency is left unused', () => {
    const unused = all.flatMap((ws) => {
      const used = new Set([...importsOf(ws).values()].flatMap((names) => [...names]));
      const allowed = new Set(USED_WITHOUT_IMPORT[ws.dir] ?? []);
      return [...runtime(ws)].filter((name) => !used.has(name) && !allowed.has(name)).map((name) => `${label(ws)}: ${name}`);
    });
    expect(unused).toEqual([]);
  });
});

describe('manifests', () => {
  test('test-only workspaces (tests/*, bench, tools/*, testkit) and the build-only console declare devDependencies only', () => {
    const withRuntime = all.filter(
      (ws) => (isTestOnly(ws.dir) || isBuildOnly(ws.dir)) && Object.keys(ws.manifest.dependencies ?? {}).length,
    );
    expect(withRuntime.map(label)).toEqual([]);
  });

  test('no runtime dependency is a test package', () => {
    const offenders = all.flatMap((ws) => [...runtime(ws)].filter((name) => testPackages.has(name)).map((name) => `${label(ws)}: ${name}`));
    expect(offenders).toEqual([]);
  });

  test('a package declared in several workspaces is declared at one version; the AWS SDK at one version throughout', () => {
    const ranges = new Map<string, Set<string>>();
    for (const ws of all)
      for (const [name, range] of Object.entries({ ...ws.manifest.dependencies, ...ws.manifest.devDependencies }))
        ranges.set(name, (ranges.get(name) ?? new Set()).add(range));
    expect([...ranges].filter(([, set]) => set.size > 1).map(([name, set]) => `${name}: ${[...set].join(' ')}`)).toEqual([]);
    const sdk = [...ranges].filter(([name]) => name.startsWith('@aws-sdk/')).map(([, set]) => [...set][0]);
    expect(new Set(sdk).size).toBe(1);
    // installed: one copy of each @aws-sdk package, and the clients the relay uses at the same version
    const lock = readLock();
    const versions = new Map<string, Set<string>>();
    for (const [path, entry] of Object.entries(lock.packages)) {
      const name = path.slice(path.lastIndexOf('node_modules/') + 13);
      if (name.startsWith('@aws-sdk/') && !entry.dev) versions.set(name, (versions.get(name) ?? new Set()).add(entry.version!));
    }
    expect([...versions].filter(([, set]) => set.size > 1)).toEqual([]);
    const clients = ['client-s3', 'lib-storage', 's3-request-presigner'].map((name) => [...(versions.get(`@aws-sdk/${name}`) ?? [])][0]);
    expect(new Set(clients).size).toBe(1);
  });

  test('engines: Node 22 or newer wherever a manifest names one, and the root names one', () => {
    expect(all[0]!.manifest.engines?.node).toBeDefined();
    const engines = all.filter((ws) => ws.manifest.engines?.node).map((ws) => [label(ws), ws.manifest.engines!.node!]);
    expect(engines.filter(([, range]) => Number(/\d+/.exec(range!)?.[0]) < 22 || !range!.startsWith('>='))).toEqual([]);
  });

  test('every npm script that runs TypeScript through tsx loads .lua imports as text (any workspace may import one)', () => {
    const scripts = Object.entries(all[0]!.manifest.scripts ?? {}).filter(([, command]) => /\btsx\b/.test(command));
    expect(scripts.length).toBeGreaterThan(5);
    expect(scripts.filter(([, command]) => !command.includes('--import ./scripts/lua-as-text.mjs')).map(([name]) => name)).toEqual([]);
  });

  test('every install script in the lockfile is reviewed in allowScripts (npm 12 skips unreviewed ones; npm 11 warns at each install)', () => {
    const reviewed = all[0]!.manifest.allowScripts ?? {};
    const withScripts = Object.entries(readLock().packages).filter(([, entry]) => entry.hasInstallScript);
    const names = new Set(withScripts.map(([path, entry]) => entry.name ?? nameAt(path)));
    expect([...names].filter((name) => !Object.hasOwn(reviewed, name))).toEqual([]);
    // what the product needs to build and run: esbuild's binary, node-av's FFmpeg libraries
    expect(['esbuild', 'node-av'].filter((name) => reviewed[name] !== true)).toEqual([]);
  });
});
