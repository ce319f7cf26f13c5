import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { luaCommand, type ScriptHost } from './lua-command.js';
import extendLua from './lua/lock-extend.lua';
import releaseLua from './lua/lock-release.lua';

const done = z.literal([0, 1]).transform((n) => n === 1);
const extendLock = luaCommand({ name: 'lock.extend', lua: extendLua, keys: ['lock'], args: ['token', 'ttlMs'], reply: done });
const releaseLock = luaCommand({ name: 'lock.release', lua: releaseLua, keys: ['lock'], args: ['token'], reply: done });

/** A Redis lock this process holds: a key set to its token, which lapses after its TTL unless extended. */
export interface RedisLock {
  readonly key: string;
  readonly token: string;
  /** Holds it for another `ttlMs`; false when it was lost (it lapsed, another took it). */
  extend(ttlMs: number): Promise<boolean>;
  /** Lets go, only while it is still this holder's; false when it was not. */
  release(): Promise<boolean>;
}

/** Takes `key` for `ttlMs` when nobody holds it (SET NX PX); undefined when somebody does. */
export async function acquireLock(redis: ScriptHost, key: string, ttlMs: number): Promise<RedisLock | undefined> {
  const token = randomBytes(16).toString('hex');
  if ((await redis.set(key, token, 'PX', ttlMs, 'NX')) !== 'OK') return undefined;
  return {
    key,
    token,
    extend: (ms) => extendLock(redis, { lock: key }, { token, ttlMs: ms }),
    release: () => releaseLock(redis, { lock: key }, { token }),
  };
}

/**
 * Runs `work` holding the lock, extended every third of its TTL so a long step keeps it while a
 * dead holder's lapses, and released after. `{ held: false }` when another holds it. A failed
 * extension or release is left to the TTL: the next extension tries again, the lock lapses.
 */
export async function withLock<T>(
  redis: ScriptHost,
  key: string,
  ttlMs: number,
  work: () => Promise<T>,
): Promise<{ held: true; value: T } | { held: false }> {
  const lock = await acquireLock(redis, key, ttlMs);
  if (!lock) return { held: false };
  const keep = setInterval(() => void lock.extend(ttlMs).catch(() => undefined), ttlMs / 3);
  try {
    return { held: true, value: await work() };
  } finally {
    clearInterval(keep);
    await lock.release().catch(() => undefined);
  }
}
