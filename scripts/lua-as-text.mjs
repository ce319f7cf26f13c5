// Running from the TypeScript sources (tsx): a `.lua` file imports as its text, as esbuild's text
// loader makes it in the bundle (scripts/build.mjs) and a plugin does under vitest
// (vitest.config.ts). Use: node --import tsx --import ./scripts/lua-as-text.mjs, or
// tsx --import ./scripts/lua-as-text.mjs.
import { readFileSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { isMainThread } from 'node:worker_threads';

/** Node's load hook: a .lua file becomes a module whose default export is its source. */
export function load(url, context, nextLoad) {
  if (!url.startsWith('file:') || !new URL(url).pathname.endsWith('.lua')) return nextLoad(url, context);
  const source = `export default ${JSON.stringify(readFileSync(new URL(url), 'utf8'))};`;
  return { format: 'module', source, shortCircuit: true };
}

// In-thread hooks where Node has them (22.15+; register() is deprecated there); older Node runs
// this same file as its hooks module, off the main thread.
if (nodeModule.registerHooks) nodeModule.registerHooks({ load });
else if (isMainThread) nodeModule.register(import.meta.url);
