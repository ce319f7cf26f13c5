// Bundles each runnable app into one ESM file under dist/: the workspace packages are inlined
// from their TypeScript sources, third-party packages stay external (installed in the image).
// The console's static files go to dist/console, where dist/api.mjs serves them from.
import { readFileSync, readdirSync } from 'node:fs';
import { build } from 'esbuild';
import { buildConsole } from '../apps/console/build.mjs';

const manifests = ['apps', 'packages'].flatMap((dir) =>
  readdirSync(dir).map((name) => JSON.parse(readFileSync(`${dir}/${name}/package.json`, 'utf8'))),
);
const external = [...new Set(manifests.flatMap((m) => Object.keys(m.dependencies ?? {})))].filter((d) => !d.startsWith('@relay/'));

const entries = {
  api: 'apps/api/src/main.ts',
  worker: 'apps/worker/src/main.ts',
  simulator: 'apps/simulator/src/main.ts',
  admin: 'apps/api/src/admin/cli.ts',
};

await build({
  entryPoints: entries,
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  conditions: ['relay-source'],
  external,
  sourcemap: true,
  logLevel: 'info',
});

const { files } = await buildConsole({ outdir: 'dist/console' });
console.log(`dist/console: index.html and ${files.length} assets`);
