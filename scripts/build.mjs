// Bundles each runnable app into one ESM file under dist/: the workspace packages are inlined
// from their TypeScript sources, the third-party packages the workspaces declare stay external,
// loaded from the root node_modules (/app/node_modules in the image, where each has one copy:
// tests/e2e/src/docker-install.test.ts holds the lockfile to that). The console's static files
// go to dist/console, where dist/api.mjs serves them from.
import { readFileSync, readdirSync } from 'node:fs';
import { build } from 'esbuild';
import { buildConsole } from '../apps/console/build.mjs';
import { BUNDLED } from './bundled.mjs';

const manifests = ['apps', 'packages'].flatMap((dir) =>
  readdirSync(dir).map((name) => JSON.parse(readFileSync(`${dir}/${name}/package.json`, 'utf8'))),
);
// esbuild leaves a package's subpaths (busboy/lib/...) external with the package
const external = [
  ...new Set(manifests.flatMap((m) => Object.keys(m.dependencies ?? {})).filter((d) => !d.startsWith('@relay/') && !BUNDLED.includes(d))),
];

const entries = {
  api: 'apps/api/src/main.ts',
  worker: 'apps/worker/src/main.ts',
  simulator: 'apps/simulator/src/main.ts',
  admin: 'apps/api/src/admin/cli.ts',
  batch: 'apps/cli/src/batch.ts',
};

await build({
  entryPoints: entries,
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  conditions: ['relay-source'],
  // the Redis scripts (.lua files beside the code that runs them) are inlined as text
  loader: { '.lua': 'text' },
  external,
  sourcemap: true,
  logLevel: 'info',
});

const { files } = await buildConsole({ outdir: 'dist/console' });
console.log(`dist/console: index.html and ${files.length} assets`);
