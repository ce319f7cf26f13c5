import { Redis, type RedisOptions } from 'ioredis';

/**
 * Two kinds of connection, chosen by what a failure should do:
 * - `fail-fast` (the API's producer side): commands fail at once while Redis is away, so a
 *   request gets 503 instead of hanging;
 * - `patient` (workers, queue events, blocking reads): retry forever, BullMQ resumes by itself.
 */
export type RedisRole = 'fail-fast' | 'patient';

const retryForever = (times: number) => Math.min(times * 200, 5_000);

export type ConnectionOptions = Omit<RedisOptions, 'retryStrategy'> & { retryStrategy: (times: number) => number };

/** ioredis options from a redis:// or rediss:// URL, for the role's failure behaviour. */
export function redisConnectionOptions(url: string, role: RedisRole): ConnectionOptions {
  const parsed = new URL(url);
  const db = parsed.pathname.replace('/', '');
  const base: ConnectionOptions = {
    host: parsed.hostname,
    port: Number(parsed.port || 6379),
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(db ? { db: Number(db) } : {}),
    ...(parsed.protocol === 'rediss:' ? { tls: {} } : {}),
    retryStrategy: retryForever,
  };
  return role === 'fail-fast'
    ? { ...base, maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 5_000 }
    : { ...base, maxRetriesPerRequest: null, enableOfflineQueue: true };
}

/**
 * Connection errors are expected while Redis restarts (ioredis reconnects by itself); they go
 * to `onError` instead of surfacing as unhandled 'error' events.
 */
export function createRedis(url: string, role: RedisRole, connectionName?: string, onError?: (err: Error) => void): Redis {
  const redis = new Redis({ ...redisConnectionOptions(url, role), connectionName });
  redis.on('error', (err: Error) => onError?.(err));
  return redis;
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
