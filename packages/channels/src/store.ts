import type { Redis } from 'ioredis';
import { AppError } from '@relay/core';
import { createScript, patchScript, removeScript, seedScript } from './commands.js';
import { channelKeys } from './keys.js';
import { fromHash, toHash, type ChannelRecord } from './record.js';

const pairs = (hash: Record<string, string>) => Object.entries(hash).flat();

/** A config channel as a worker's config describes it (catalog upstream + environment). */
export interface ConfigChannel {
  id: string;
  upstream: ChannelRecord['upstream'];
  baseUrl: string;
  keyEnv: string;
  timeoutMs: number;
}

/** Channels in Redis: what the admin API changes and every worker reads. */
export function createChannelStore(redis: Redis, prefix: string) {
  const keys = channelKeys(prefix);

  const store = {
    keys,

    async list(): Promise<ChannelRecord[]> {
      const ids = (await redis.smembers(keys.all)).sort();
      if (!ids.length) return [];
      const pipeline = redis.pipeline();
      for (const id of ids) pipeline.hgetall(keys.channel(id));
      const replies = (await pipeline.exec()) ?? [];
      return replies.flatMap(([error, hash]) =>
        !error && (hash as Record<string, string>).id ? [fromHash(hash as Record<string, string>)] : [],
      );
    },

    async get(id: string): Promise<ChannelRecord | undefined> {
      const hash = await redis.hgetall(keys.channel(id));
      return hash.id ? fromHash(hash) : undefined;
    },

    /** Adds a channel; 409 when the id is taken. */
    async create(record: Omit<ChannelRecord, 'createdAt' | 'updatedAt' | 'disabled' | 'disabledReason' | 'source'>) {
      const now = Date.now();
      const hash = toHash({ ...record, source: 'admin', disabled: false, disabledReason: null, createdAt: now, updatedAt: now });
      const made = await createScript(
        redis,
        { channel: keys.channel(record.id), all: keys.all, version: keys.version },
        { id: record.id },
        ...pairs(hash),
      );
      if (!made)
        throw new AppError('conflict', `a channel ${record.id} exists already: PATCH it, or DELETE it first`, {
          param: 'id',
          retryable: false,
        });
    },

    /** Changes fields of a channel; false when there is none. */
    async patch(id: string, fields: Partial<ChannelRecord>) {
      const hash = toHash({ ...fields, updatedAt: Date.now() });
      return patchScript(redis, { channel: keys.channel(id), version: keys.version }, {}, ...pairs(hash));
    },

    /** Forgets a channel's breaker and quota state (an operator took it back into service). */
    async clearHealth(id: string) {
      await redis.del(keys.health(id));
    },

    async remove(id: string) {
      return removeScript(
        redis,
        {
          channel: keys.channel(id),
          health: keys.health(id),
          window: keys.window(id),
          all: keys.all,
          version: keys.version,
          leases: keys.ownLeases(id),
        },
        { id },
      );
    },

    /**
     * Writes the config channels as this process's config has them, and drops config channels the
     * config no longer has. Nothing an operator set through the admin API is overwritten.
     */
    async seed(channels: ConfigChannel[]) {
      const now = String(Date.now());
      for (const c of channels) {
        const configured = toHash({
          id: c.id,
          upstream: c.upstream,
          baseUrl: c.baseUrl,
          source: 'config',
          keyEnv: c.keyEnv,
          keySealed: null,
          timeoutMs: c.timeoutMs,
          updatedAt: Number(now),
        });
        const defaults = toHash({
          weight: 1,
          priority: 0,
          maxConcurrent: 0,
          maxPerMinute: 0,
          capacityGroup: null,
          models: null,
          disabled: false,
          disabledReason: null,
          createdAt: Number(now),
        });
        await seedScript(
          redis,
          { channel: keys.channel(c.id), all: keys.all, version: keys.version },
          { id: c.id, configuredPairs: Object.keys(configured).length },
          ...pairs(configured),
          ...pairs(defaults),
        );
      }
      const wanted = new Set(channels.map((c) => c.id));
      for (const stale of (await store.list()).filter((r) => r.source === 'config' && !wanted.has(r.id))) await store.remove(stale.id);
    },

    /** Moves whenever a channel changes (workers poll it). */
    version: async () => Number((await redis.get(keys.version)) ?? 0),
  };
  return store;
}

export type ChannelStore = ReturnType<typeof createChannelStore>;
