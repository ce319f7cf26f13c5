import type { BenchStack } from '../stack.js';
import { startPeer } from './spawn-peer.js';

/** The floor (floor-server.ts) on the bench's simulator and store. */
export function startFloor(stack: BenchStack) {
  const sim = stack.sim.ready.url!;
  return startPeer('floor', 'floor-server.ts', { ...stack.env, FLOOR_ARK_URL: `${sim}/api/v3`, FLOOR_GEMINI_URL: sim });
}
