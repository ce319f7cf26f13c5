// Bundles each runnable app into one ESM file under dist/: the workspace packages are inlined
// from their TypeScript sources, third-party packages stay external (installed in the image).
// The console's static files go to dist/console, where dist/api.mjs serves them from.
import { readFileSync, readdirSync } from 'node:fs';
import { build } from 'esbuild';
import { buildConsole } from '../apps/console/build.mjs';
import { externals } from './externals.mjs';

const manifests = ['apps', 'packages'].flatMap((dir) =>
  readdirSync(dir).map((name) => JSON.parse(readFileSync(`${dir}/${name}/package.json`, 'utf8'))),
);
const declared = new Set(manifests.flatMap((m) => Object.keys(m.dependencies ?? {})).filter((d) => !d.startsWith('@relay/')));
const bundled = new Set();

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
  target: 'node20',
  conditions: ['relay-source'],
  // the Redis scripts (.lua files beside the code that runs them) are inlined as text
  loader: { '.lua': 'text' },
  plugins: [externals(declared, process.cwd(), bundled)],
  // CommonJS code bundled into these ES modules may require Node's builtins
  banner: { js: "import { createRequire as __relayRequire } from 'node:module'; const require = __relayRequire(import.meta.url);" },
  sourcemap: true,
  logLevel: 'info',
});

if (bundled.size) console.log(`bundled, not the root node_modules' copy: ${[...bundled].join(', ')}`);

const { files } = await buildConsole({ outdir: 'dist/console' });
console.log(`dist/console: index.html and ${files.length} assets`);
