import { join } from 'node:path';
import { repoRoot, SOURCE_NODE_ARGS, spawnReady } from '@relay/testkit';

/** A bench peer (one of this folder's servers) as a process of its own, for its CPU. */
export async function startPeer(name: string, file: string, env: Record<string, string> = {}) {
  const child = await spawnReady(name, [...SOURCE_NODE_ARGS, join(repoRoot, 'bench/peer', file)], env);
  return { url: child.ready.url!, pid: child.child.pid!, stop: () => child.stop() };
}
