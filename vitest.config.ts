import { defineConfig } from 'vitest/config';

// Workspace packages export their TypeScript sources under the "relay-source" condition, so
// tests run against src/ without a build step. The name is the repo's own: a plain "source"
// is also published by dependencies (eventsource-parser, under the AI SDK), whose .ts files
// Node and tsc would then pick up.
export default defineConfig({
  resolve: { conditions: ['relay-source'] },
  ssr: { resolve: { conditions: ['relay-source'] } },
  test: {
    include: ['apps/*/src/**/*.test.ts', 'packages/*/src/**/*.test.ts', 'tests/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
