import type { Redis } from 'ioredis';
import { z } from 'zod';
import { luaCommand } from '@relay/core';
import type { Caller } from '../http/locals.js';
import { accountIndexKeys, nameKey, searchMembers } from './account-index.js';
import createAccountLua from './lua/create-account.lua';
import { createLastUsed } from './last-used.js';
import { hashKey, isId, newApiKey, newId } from './keys.js';
import type { Account, KeyRecord } from './records.js';

export type { Account, KeyRecord } from './records.js';

/**
 * Accounts and API keys in Redis:
 *   {p}:account:{id}        hash  id, name, createdAt (+ balance, reserved, spent: @relay/billing)
 *   {p}:account:{id}:keys   set   key ids
 *   {p}:key:{id}            hash  id, accountId, name, createdAt, revokedAt, rateLimitPerMinute, hash, lastUsedAt
 *   {p}:accounts, {p}:accounts:search, {p}:accounts:names   the listing, search and name indexes (account-index.ts)
 *   {p}:keyhash:{sha256}    hash  keyId, accountId, rateLimitPerMinute (removed on revoke: the lookup then fails)
 */
/** lua/create-account.lua: the account with its indexes, unless its name is taken ('' when created, else the holder's id). */
const createAccountScript = luaCommand({
  name: 'api.createAccount',
  lua: createAccountLua,
  keys: ['names', 'account', 'byTime', 'search'],
  args: ['nameKey', 'id', 'name', 'createdAt'],
  rest: true,
  reply: z.string(),
});

const ACCOUNT_FIELDS = ['id', 'name', 'createdAt', 'weight', 'maxInFlight'] as const;

/** An account as the API shows it, from its hash (weight 1 and no cap unless set). */
function toAccount(h: Partial<Record<string, string | undefined>>): Account {
  return {
    id: h.id!,
    name: h.name ?? '',
    createdAt: Number(h.createdAt),
    weight: Number(h.weight ?? 1),
    maxInFlight: h.maxInFlight ? Number(h.maxInFlight) : null,
  };
}

export function createAccountsStore(redis: Redis, prefix: string) {
  const k = {
    account: (id: string) => `${prefix}:account:${id}`,
    accountKeys: (id: string) => `${prefix}:account:${id}:keys`,
    key: (id: string) => `${prefix}:key:${id}`,
    keyHash: (hash: string) => `${prefix}:keyhash:${hash}`,
  };

  const toKey = (h: Record<string, string>): KeyRecord => ({
    id: h.id!,
    accountId: h.accountId!,
    name: h.name ?? '',
    createdAt: Number(h.createdAt),
    revokedAt: h.revokedAt ? Number(h.revokedAt) : null,
    rateLimitPerMinute: h.rateLimitPerMinute ? Number(h.rateLimitPerMinute) : null,
    lastUsedAt: h.lastUsedAt ? Number(h.lastUsedAt) : null,
  });
  const lastUsed = createLastUsed(redis, k.key);
  /** Lookups in flight, by the secret's hash: the requests of a key that come meanwhile share one. */
  const finding = new Map<string, Promise<Caller | undefined>>();
  const lookUp = async (hash: string): Promise<Caller | undefined> => {
    const h = await redis.hgetall(k.keyHash(hash));
    if (!h.keyId || !h.accountId) return undefined;
    lastUsed.touch(h.keyId);
    return {
      keyId: h.keyId,
      accountId: h.accountId,
      ...(h.rateLimitPerMinute ? { rateLimitPerMinute: Number(h.rateLimitPerMinute) } : {}),
    };
  };

  return {
    /**
     * A new account, unless another already holds its name (compared trimmed, case ignored:
     * nameKey): then that one, as `taken`. Of two creates with the same name at once, exactly
     * one makes an account.
     */
    async createAccount(name: string): Promise<{ created: Account } | { taken: Pick<Account, 'id' | 'name'> }> {
      const account = { id: newId('acct'), name, createdAt: Date.now() };
      const index = accountIndexKeys(prefix);
      const holder = await createAccountScript(
        redis,
        { names: index.names, account: k.account(account.id), byTime: index.byTime, search: index.search },
        { nameKey: nameKey(name), id: account.id, name, createdAt: account.createdAt },
        ...searchMembers(account),
      );
      if (holder) return { taken: { id: holder, name: (await redis.hget(k.account(holder), 'name')) ?? name } };
      return { created: { ...account, weight: 1, maxInFlight: null } };
    },

    /** Several accounts in one round trip, in the order asked; unknown ids are left out. */
    async getAccounts(ids: string[]): Promise<Account[]> {
      const pipeline = redis.pipeline();
      for (const id of ids) pipeline.hmget(k.account(id), ...ACCOUNT_FIELDS);
      const rows = (await pipeline.exec()) ?? [];
      return rows
        .map(([, row]) => row as Array<string | null>)
        .filter((row) => row[0])
        .map((row) => toAccount(Object.fromEntries(ACCOUNT_FIELDS.map((f, i) => [f, row[i] ?? undefined]))));
    },

    async getAccount(id: string): Promise<Account | undefined> {
      if (!isId('acct', id)) return undefined;
      const h = await redis.hgetall(k.account(id));
      return h.id ? toAccount(h) : undefined;
    },

    /**
     * How the scheduler treats the account: its weight and its cap on jobs in flight (null lifts
     * it). The dispatcher reads them from the account's hash at every turn: no restart, no cache.
     */
    async updateSchedule(id: string, change: { weight?: number | undefined; maxInFlight?: number | null | undefined }) {
      const multi = redis.multi();
      if (change.weight !== undefined) multi.hset(k.account(id), 'weight', change.weight);
      if (change.maxInFlight === null) multi.hdel(k.account(id), 'maxInFlight');
      else if (change.maxInFlight !== undefined) multi.hset(k.account(id), 'maxInFlight', change.maxInFlight);
      await multi.exec();
    },

    async listKeys(accountId: string): Promise<KeyRecord[]> {
      const ids = await redis.smembers(k.accountKeys(accountId));
      const pipeline = redis.pipeline();
      for (const id of ids) pipeline.hgetall(k.key(id));
      const rows = (await pipeline.exec()) ?? [];
      return rows
        .map(([, h]) => h as Record<string, string>)
        .filter((h) => h.id)
        .map(toKey)
        .sort((a, b) => a.createdAt - b.createdAt);
    },

    /** Returns the secret once; afterwards only its hash exists. */
    async createKey(accountId: string, name: string, rateLimitPerMinute?: number): Promise<{ record: KeyRecord; secret: string }> {
      const secret = newApiKey();
      const hash = hashKey(secret);
      const record: KeyRecord = {
        id: newId('key'),
        accountId,
        name,
        createdAt: Date.now(),
        revokedAt: null,
        rateLimitPerMinute: rateLimitPerMinute ?? null,
        lastUsedAt: null,
      };
      const limit = rateLimitPerMinute === undefined ? {} : { rateLimitPerMinute };
      await redis
        .multi()
        .hset(k.key(record.id), { id: record.id, accountId, name, createdAt: record.createdAt, hash, ...limit })
        .sadd(k.accountKeys(accountId), record.id)
        .hset(k.keyHash(hash), { keyId: record.id, accountId, ...limit })
        .exec();
      return { record, secret };
    },

    async revokeKey(keyId: string): Promise<KeyRecord | undefined> {
      if (!isId('key', keyId)) return undefined;
      const h = await redis.hgetall(k.key(keyId));
      if (!h.id) return undefined;
      const revokedAt = h.revokedAt ? Number(h.revokedAt) : Date.now();
      await redis
        .multi()
        .hset(k.key(keyId), 'revokedAt', revokedAt)
        .del(k.keyHash(h.hash ?? ''))
        .exec();
      // a lookup already in flight does not answer the requests after the revocation
      finding.delete(h.hash ?? '');
      return { ...toKey(h), revokedAt };
    },

    /**
     * One round trip per request, and one for the requests of a key that come while it is asked
     * (a burst of one client's calls asks once: 10,000 lookups at once kept Redis and the api busy
     * with their replies); the secret's hash leads straight to key and account. A key revoked here
     * is looked up afresh by the next request; in another process, by the next one after the
     * lookup in flight (a request that came during the revocation may pass, as it could have).
     */
    findCaller(secret: string): Promise<Caller | undefined> {
      const hash = hashKey(secret);
      let found = finding.get(hash);
      if (!found) {
        found = lookUp(hash).finally(() => finding.get(hash) === found && finding.delete(hash));
        finding.set(hash, found);
      }
      return found;
    },
  };
}

export type AccountsStore = ReturnType<typeof createAccountsStore>;
