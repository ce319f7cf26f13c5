import { join } from 'node:path';
import { repoRoot, SOURCE_NODE_ARGS, spawnReady } from '@relay/testkit';
import type { BenchStack } from '../stack.js';

/** The floor (floor-server.ts) as a process of its own on the bench's simulator and store, for its CPU. */
export async function startFloor(stack: BenchStack) {
  const sim = stack.sim.ready.url!;
  const child = await spawnReady('floor', [...SOURCE_NODE_ARGS, join(repoRoot, 'bench/peer/floor-server.ts')], {
    ...stack.env,
    FLOOR_ARK_URL: `${sim}/api/v3`,
    FLOOR_GEMINI_URL: sim,
  });
  return { url: child.ready.url!, pid: child.child.pid!, stop: () => child.stop() };
}
