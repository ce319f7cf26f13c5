import { defineConfig } from 'vitest/config';

// Workspace packages export their TypeScript sources under the "relay-source" condition, so
// tests run against src/ without a build step. The name is the repo's own: a plain "source"
// is also published by dependencies (eventsource-parser, under the AI SDK), whose .ts files
// Node and tsc would then pick up.
export default defineConfig({
  // a .lua file imports as its text, as esbuild's text loader makes it in the bundle (scripts/build.mjs)
  plugins: [
    {
      name: 'lua-as-text',
      transform: (code, id) => (id.endsWith('.lua') ? { code: `export default ${JSON.stringify(code)};`, map: null } : undefined),
    },
  ],
  resolve: { conditions: ['relay-source'] },
  ssr: { resolve: { conditions: ['relay-source'] } },
  test: {
    include: ['apps/*/src/**/*.test.ts', 'packages/*/src/**/*.test.ts', 'tests/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
