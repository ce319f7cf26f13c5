// Builds the console into static files: esbuild bundles the Preact app and its CSS with
// content-hashed names under assets/, and index.html is written to point at them.
//   node apps/console/build.mjs [outdir]     (default apps/console/dist)
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = fileURLToPath(new URL('.', import.meta.url));
const BASE = '/console/assets/';

/** @param {{ outdir?: string, minify?: boolean }} options */
export async function buildConsole({ outdir = join(here, 'dist'), minify = true } = {}) {
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(join(outdir, 'assets'), { recursive: true });
  const result = await build({
    entryPoints: { app: join(here, 'src/main.tsx') },
    outdir: join(outdir, 'assets'),
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    bundle: true,
    format: 'esm',
    target: ['chrome111', 'firefox115', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    // workspace packages from their TypeScript sources (the money formatter the CLIs share)
    conditions: ['relay-source'],
    minify,
    sourcemap: 'linked',
    metafile: true,
    legalComments: 'linked',
    logLevel: 'warning',
  });
  const outputs = Object.keys(result.metafile.outputs).map((file) => basename(file));
  const script = outputs.find((f) => /^app-.*\.js$/.test(f));
  const style = outputs.find((f) => /^app-.*\.css$/.test(f));
  writeFileSync(
    join(outdir, 'index.html'),
    `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>relay console</title>
<link rel="icon" href="data:,">
${style ? `<link rel="stylesheet" href="${BASE}${style}">` : ''}
<script type="module" src="${BASE}${script}"></script>
</head>
<body><div id="app"><noscript>The relay console needs JavaScript.</noscript></div></body>
</html>
`,
  );
  return { outdir, files: outputs };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  const { outdir } = await buildConsole({ outdir: process.argv[2] ? resolve(process.argv[2]) : undefined });
  console.log(`console built into ${outdir} in ${Math.round(performance.now() - started)} ms`);
}
