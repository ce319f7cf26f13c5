import { join } from 'node:path';
import { repoRoot, SOURCE_NODE_ARGS, spawnReady } from '@relay/testkit';

/** The bare door (door-server.ts) as a process of its own, for its CPU. */
export async function startDoor() {
  const child = await spawnReady('door', [...SOURCE_NODE_ARGS, join(repoRoot, 'bench/peer/door-server.ts')], {});
  return { url: child.ready.url!, pid: child.child.pid!, stop: () => child.stop() };
}
