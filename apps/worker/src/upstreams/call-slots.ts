import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { evalScript } from '@relay/core';

/**
 * At most `max` calls to one upstream at once, across every worker process: a lease per call
 * in a Redis sorted set (score = expiry on Redis's clock). Only the call holds a slot, not the
 * copying that follows, so the upstream stays busy while results are stored. A lease is
 * renewed while its call runs and lapses if its worker dies; a freed slot is announced on a
 * channel so a waiting worker tries at once instead of at its next poll.
 */
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 2)
return 1
`;
const RENEW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[1]), ARGV[2])
`;
const RELEASE = `
if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then redis.call('PUBLISH', KEYS[2], '1') end
return 1
`;

const POLL_MS = 200;

export interface CallSlots {
  run<T>(call: () => Promise<T>): Promise<T>;
}

export const unlimitedSlots: CallSlots = { run: (call) => call() };

export function createCallSlots(redis: Redis, subscriber: Redis, key: string, max: number, leaseMs = 30_000): CallSlots {
  if (max <= 0) return unlimitedSlots;
  const channel = `${key}:freed`;
  const waiting: Array<() => void> = [];
  void subscriber.subscribe(channel);
  subscriber.on('message', (from: string) => {
    if (from === channel) waiting.shift()?.();
  });

  const acquire = async (token: string) => {
    while (Number(await evalScript(redis, ACQUIRE, 1, key, max, leaseMs, token)) !== 1) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          const at = waiting.indexOf(wake);
          if (at >= 0) waiting.splice(at, 1);
          resolve();
        }, POLL_MS);
        const wake = () => {
          clearTimeout(timer);
          resolve();
        };
        waiting.push(wake);
      });
    }
  };

  return {
    async run(call) {
      const token = randomBytes(12).toString('hex');
      await acquire(token);
      const renew = setInterval(() => void evalScript(redis, RENEW, 1, key, leaseMs, token).catch(() => undefined), leaseMs / 3);
      try {
        return await call();
      } finally {
        clearInterval(renew);
        await evalScript(redis, RELEASE, 2, key, channel, token).catch(() => undefined);
      }
    },
  };
}
