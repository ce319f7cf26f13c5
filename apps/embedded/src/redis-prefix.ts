import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { ConfigError, createRedis, isClusterUrl, waitForRedis } from '@relay/core';
import { DEMO_KEY_FILE } from './demo-key.js';

/**
 * Which Redis key prefix a relay of `npm start` uses. Two relays on one Redis under one prefix
 * share accounts, jobs and channels: the second re-seeds the channels with its own simulator's
 * address and the first one's calls go there (issue 34). So each data folder has a prefix of its
 * own, made once from the machine and the folder's path and kept in the folder (restarts keep
 * their data), unless REDIS_PREFIX is set. While it runs, the launcher holds the prefix in Redis
 * (`{prefix}:launcher`, renewed, expiring): a second relay never takes a prefix another running
 * relay holds; it moves to one of its own, or, when REDIS_PREFIX asked for it, refuses in one line.
 */
export const PREFIX_FILE = 'redis-prefix';
/** The prefix every npm start used before each data folder had its own; a folder used then keeps it. */
export const SHARED_PREFIX = 'relay';

/** set: REDIS_PREFIX; new: made at this first start; kept: from an earlier start; moved: another running relay held the kept one. */
export type PrefixSource = 'set' | 'new' | 'kept' | 'moved';

/** Who holds a prefix: enough to name it, and to tell a relay of this machine that is gone. */
export interface PrefixHolder {
  host: string;
  dataDir: string;
  pid: number;
  url: string;
}

export interface PrefixClaim {
  prefix: string;
  source: PrefixSource;
  /** For `moved`: the prefix it would have used, and the running relay holding it. */
  movedFrom?: { prefix: string; holder: PrefixHolder };
  release(): Promise<void>;
}

const HOLD_MS = 30_000;
const holderKey = (prefix: string) => `${prefix}:launcher`;
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0`;

/** `relay-` and 8 hex digits of this machine and the folder's real path (a hash tag on a cluster). */
export function ownPrefix(dataDir: string, redisUrl: string, salt = '') {
  const digest = createHash('sha256')
    .update(`${hostname()}\0${realpathSync(dataDir)}\0${salt}`)
    .digest('hex')
    .slice(0, 8);
  return isClusterUrl(redisUrl) ? `{relay-${digest}}` : `relay-${digest}`;
}

/** The prefix this folder's relay used before: the one recorded, or the shared one for a folder an earlier npm start used. */
export function recordedPrefix(dataDir: string): string | undefined {
  const file = join(dataDir, PREFIX_FILE);
  const saved = existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
  if (saved) return saved;
  return existsSync(join(dataDir, DEMO_KEY_FILE)) ? SHARED_PREFIX : undefined;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Another running relay holding the prefix, if any: not this folder's own (a restart), nor a relay of this machine that is gone. */
async function otherHolder(redis: ReturnType<typeof createRedis>, prefix: string, me: PrefixHolder): Promise<PrefixHolder | undefined> {
  const raw = await redis.get(holderKey(prefix));
  if (!raw) return undefined;
  let holder: PrefixHolder;
  try {
    holder = JSON.parse(raw) as PrefixHolder;
  } catch {
    return undefined;
  }
  if (holder.host === me.host && (holder.dataDir === me.dataDir || !alive(holder.pid))) return undefined;
  return holder;
}

export const describeHolder = (holder: PrefixHolder) =>
  `the relay of ${holder.dataDir} (${holder.url}, pid ${holder.pid}${holder.host === hostname() ? '' : ` on ${holder.host}`})`;

/**
 * Chooses the prefix (REDIS_PREFIX, else this folder's), takes it in Redis and keeps it until
 * `release`. A REDIS_PREFIX another running relay holds is a ConfigError saying whose it is.
 */
export async function claimPrefix(redisUrl: string, dataDir: string, given: string | undefined, apiUrl: string): Promise<PrefixClaim> {
  const me: PrefixHolder = { host: hostname(), dataDir, pid: process.pid, url: apiUrl };
  const redis = createRedis(redisUrl, 'fail-fast', 'relay-launcher');
  try {
    await waitForRedis(redis, 5_000);
    let chosen: Omit<PrefixClaim, 'release'>;
    if (given) {
      const holder = await otherHolder(redis, given, me);
      if (holder)
        throw new ConfigError(
          `relay: REDIS_PREFIX=${given} is used by ${describeHolder(holder)} on ${redisUrl}; ` +
            `two relays under one prefix take each other's channels: set another REDIS_PREFIX, or unset it for this data folder's own`,
        );
      chosen = { prefix: given, source: 'set' };
    } else {
      const recorded = recordedPrefix(dataDir);
      const first = recorded ?? ownPrefix(dataDir, redisUrl);
      const holder = await otherHolder(redis, first, me);
      if (!holder) chosen = { prefix: first, source: recorded ? 'kept' : 'new' };
      else {
        // a copied data folder, or two folders an earlier npm start shared 'relay' in: this one gets its own
        let prefix = ownPrefix(dataDir, redisUrl);
        while (prefix === first || (await otherHolder(redis, prefix, me)))
          prefix = ownPrefix(dataDir, redisUrl, randomBytes(4).toString('hex'));
        chosen = { prefix, source: 'moved', movedFrom: { prefix: first, holder } };
      }
      writeFileSync(join(dataDir, PREFIX_FILE), `${chosen.prefix}\n`);
    }
    const value = JSON.stringify(me);
    const hold = () => redis.set(holderKey(chosen.prefix), value, 'PX', HOLD_MS);
    await hold();
    // renewed while it runs; a launcher killed outright lets go after HOLD_MS (at once for a relay of this machine)
    const timer = setInterval(() => void hold().catch(() => {}), HOLD_MS / 3);
    timer.unref();
    return {
      ...chosen,
      async release() {
        clearInterval(timer);
        await redis.eval(RELEASE, 1, holderKey(chosen.prefix), value).catch(() => {});
        redis.disconnect();
      },
    };
  } catch (error) {
    redis.disconnect();
    throw error;
  }
}
