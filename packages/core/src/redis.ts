import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { defineEveryScript } from './lua-command.js';
import { coalesceWrites, REDIS_WRITES } from './redis-writes.js';
import { parseSentinelUrl, sentinelOptions, type SentinelEnv } from './redis-sentinel.js';

/**
 * Two kinds of connection, chosen by what a failure should do:
 * - `fail-fast` (the API's producer side): commands fail at once while Redis is away, so a
 *   request gets 503 instead of hanging;
 * - `patient` (workers, queue events, blocking reads): retry forever, BullMQ resumes by itself.
 */
export type RedisRole = 'fail-fast' | 'patient';

const retryForever = (times: number) => Math.min(times * 200, 5_000);

export type ConnectionOptions = Omit<RedisOptions, 'retryStrategy'> & { retryStrategy: (times: number) => number };

/**
 * `redis+cluster://host:port` (or `rediss+cluster://`) names one node of a Redis Cluster; the
 * client finds the others. Every key then needs one hash tag (REDIS_PREFIX such as `{relay}`).
 */
export const isClusterUrl = (url: string) => /^rediss?\+cluster:\/\//.test(url);

/**
 * ioredis options from a redis:// or rediss:// URL (or one node's, for a cluster, or the
 * sentinels', redis-sentinel.ts), for the role's failure behaviour.
 */
export function redisConnectionOptions(url: string, role: RedisRole, env: SentinelEnv = process.env): ConnectionOptions {
  const sentinel = parseSentinelUrl(url);
  const server = sentinel ? undefined : new URL(url.replace(/^(rediss?)\+cluster:/, '$1:'));
  const parsed = sentinel ?? server!;
  const db = parsed.pathname.replace('/', '');
  const base: ConnectionOptions = {
    ...(sentinel ? sentinelOptions(sentinel, env) : { host: server!.hostname, port: Number(server!.port || 6379) }),
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(db ? { db: Number(db) } : {}),
    ...(parsed.protocol === 'rediss:' ? { tls: {} } : {}),
    retryStrategy: retryForever,
  };
  // BullMQ makes its connections from these options: the bench's autopipelining reaches them too
  if (REDIS_WRITES === 'autopipeline') base.enableAutoPipelining = true;
  return role === 'fail-fast'
    ? { ...base, maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 5_000 }
    : { ...base, maxRetriesPerRequest: null, enableOfflineQueue: true };
}

/**
 * Connection errors are expected while Redis restarts (ioredis reconnects by itself); they go
 * to `onError` instead of surfacing as unhandled 'error' events.
 */
export function createRedis(url: string, role: RedisRole, connectionName?: string, onError?: (err: Error) => void): Redis {
  const redis = isClusterUrl(url)
    ? createCluster(url, role, connectionName)
    : new Redis({ ...redisConnectionOptions(url, role), connectionName });
  redis.on('error', (err: Error) => onError?.(err));
  coalesceWrites(redis);
  // an autopipeline copies the scripts defined when it is made: all of them, before the first
  if (REDIS_WRITES === 'autopipeline') defineEveryScript(redis);
  return redis;
}

/**
 * A cluster client for the same role. It is typed as a Redis: the relay uses only commands both
 * share (single-slot keys, scripts, MULTI, pub/sub), and `scanKeys` covers the one difference.
 */
function createCluster(url: string, role: RedisRole, connectionName?: string): Redis {
  const { host, port, retryStrategy, ...redisOptions } = redisConnectionOptions(url, role);
  const cluster = new Cluster([{ host, port }], {
    redisOptions: { ...redisOptions, connectionName },
    clusterRetryStrategy: retryStrategy,
    enableOfflineQueue: role === 'patient',
    enableReadyCheck: true,
  });
  return cluster as unknown as Redis;
}

/** What BullMQ connects with: options it makes its own connections from, or a cluster client. */
export function queueConnection(url: string, role: RedisRole): ConnectionOptions | Redis {
  return isClusterUrl(url) ? createCluster(url, role, 'bullmq') : redisConnectionOptions(url, role);
}

/** Every key matching `match`, on a single server or on each master of a cluster. */
export async function* scanKeys(redis: Redis, match: string): AsyncIterable<string[]> {
  const nodes = redis instanceof Cluster ? (redis as Cluster).nodes('master') : [redis];
  for (const node of nodes) yield* node.scanStream({ match, count: 500 }) as AsyncIterable<string[]>;
}

/** On a cluster every key of the relay must share one slot: a prefix without a hash tag cannot work. */
export function requireHashTag(
  env: { REDIS_URL?: unknown; REDIS_PREFIX?: unknown },
  ctx: { addIssue(issue: { code: 'custom'; path: string[]; message: string }): void },
) {
  if (typeof env.REDIS_URL !== 'string' || !isClusterUrl(env.REDIS_URL)) return;
  if (typeof env.REDIS_PREFIX === 'string' && /\{[^{}]+\}/.test(env.REDIS_PREFIX)) return;
  ctx.addIssue({
    code: 'custom',
    path: ['REDIS_PREFIX'],
    message: `"${String(env.REDIS_PREFIX)}" has no hash tag: on Redis Cluster set REDIS_PREFIX={relay} (braces included) so every key of the relay lives in one slot`,
  });
}

/** Resolves once the connection is ready (or rejects after `timeoutMs`). */
export async function waitForRedis(redis: Redis, timeoutMs = 10_000): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`Redis not ready after ${timeoutMs} ms`));
    }, timeoutMs);
    const onReady = () => {
      cleanup();
      resolve();
    };
    const cleanup = () => {
      clearTimeout(timer);
      redis.off('ready', onReady);
    };
    redis.on('ready', onReady);
  });
}

/**
 * SUBSCRIBE once the connection is ready. ioredis writes a SUBSCRIBE at once while the connection
 * is still in its handshake (the command is allowed while Redis loads); its ready check (INFO)
 * then fails in subscriber mode, the connection is dropped with "Connection in subscriber mode,
 * only subscriber commands may be used" and reopened without the subscription (ioredis#2037):
 * the subscriber would hear nothing ever after. Subscribed on a ready connection, ioredis
 * subscribes again by itself after a reconnect.
 */
export function subscribeWhenReady(redis: Redis, ...channels: string[]): Promise<unknown> {
  if (redis.status === 'ready') return redis.subscribe(...channels);
  return new Promise((resolve, reject) => {
    redis.once('ready', () => redis.subscribe(...channels).then(resolve, reject));
  });
}
