// Builds the console into static files: esbuild bundles the Preact app and its CSS with
// content-hashed names under assets/, and index.html is written to point at them, with the
// sign-in form already in it (rendered here from the app's own component) as its first paint.
//   node apps/console/build.mjs [outdir]     (default apps/console/dist)
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = fileURLToPath(new URL('.', import.meta.url));
const BASE = '/console/assets/';
const esbuildShared = /** @type {const} */ ({
  bundle: true,
  jsx: 'automatic',
  jsxImportSource: 'preact',
  // workspace packages from their TypeScript sources (the money formatter the CLIs share)
  conditions: ['relay-source'],
  logLevel: 'warning',
});

/**
 * The app's SignIn component rendered to HTML (src/prerender.tsx, bundled for Node in memory):
 * what the page paints before its script runs, and without JavaScript.
 */
async function prerenderSignIn() {
  const bundle = await build({
    ...esbuildShared,
    entryPoints: [join(here, 'src/prerender.tsx')],
    platform: 'node',
    format: 'esm',
    write: false,
  });
  const code = bundle.outputFiles[0]?.text ?? ''; // one file, no outdir: written to '<stdout>'
  /** @type {{ signInHtml(): string }} */
  const { signInHtml } = await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`);
  return signInHtml();
}

/** @param {{ outdir?: string, minify?: boolean }} options */
export async function buildConsole({ outdir = join(here, 'dist'), minify = true } = {}) {
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(join(outdir, 'assets'), { recursive: true });
  const result = await build({
    entryPoints: { app: join(here, 'src/main.tsx') },
    outdir: join(outdir, 'assets'),
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    ...esbuildShared,
    format: 'esm',
    target: ['chrome111', 'firefox115', 'safari16'],
    minify,
    sourcemap: 'linked',
    metafile: true,
    legalComments: 'linked',
  });
  const outputs = Object.keys(result.metafile.outputs).map((file) => basename(file));
  const script = outputs.find((f) => /^app-.*\.js$/.test(f));
  const style = outputs.find((f) => /^app-.*\.css$/.test(f));
  const signIn = await prerenderSignIn();
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
<body><div id="app">${signIn}</div></body>
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
