/** Workspaces only tests, benchmarks and the linter use: every dependency of theirs is a devDependency. */
export const isTestOnly = (dir: string) =>
  dir.startsWith('tests/') || dir.startsWith('tools/') || dir === 'bench' || dir === 'packages/testkit';

/** Built into static files by esbuild before anything runs (the console): its imports are build inputs, devDependencies. */
export const isBuildOnly = (dir: string) => dir === 'apps/console';

/** Packages that test, never a runtime dependency of anything (besides the test-only workspaces themselves). */
export const TEST_TOOLS = ['vitest', 'fast-check', 'testcontainers', 'playwright-core', '@seriousme/openapi-schema-validator'];

/**
 * Runtime dependencies used without an import, by what they are: a package named on a command line
 * or served as files.
 */
export const USED_WITHOUT_IMPORT: Record<string, string[]> = {
  // npm start and spawnApp run TypeScript sources with `node --import tsx`
  'apps/embedded': ['tsx'],
  'packages/local': ['tsx'],
};

/** What the Docker image runs: the api (and its admin CLI), the worker, the simulator, the batch CLI. */
export const IMAGE_APPS = ['apps/api', 'apps/worker', 'apps/simulator', 'apps/cli'];
