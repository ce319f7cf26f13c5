import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

type ScriptRunner = Pick<Redis, 'eval' | 'evalsha'>;

const shas = new Map<string, string>();

/**
 * Runs a Lua script by its SHA1 (EVALSHA), sending the source only when the server does not have
 * it yet (a restart, a new cluster node). The relay's scripts run several times per request and
 * are kilobytes long: sent whole each time, they cost the client its socket writes and Redis a
 * hash of the source per call.
 */
export async function evalScript(redis: ScriptRunner, source: string, numKeys: number, ...args: Array<string | number>): Promise<unknown> {
  let sha = shas.get(source);
  if (!sha) {
    sha = createHash('sha1').update(source).digest('hex');
    shas.set(source, sha);
  }
  try {
    return await redis.evalsha(sha, numKeys, ...args);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return redis.eval(source, numKeys, ...args);
  }
}
