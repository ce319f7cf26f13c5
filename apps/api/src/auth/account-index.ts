import type { ChainableCommander, Redis } from 'ioredis';
import { scanKeys } from '@relay/core';
import type { Account } from './records.js';

/**
 * The indexes that let the console list and search accounts without KEYS or SCAN:
 *   {p}:accounts          sorted set  account id by createdAt (newest first when listed)
 *   {p}:accounts:search   sorted set  "{word}\0{id}" at score 0, one member per word of the
 *                                     lowercased name and one for the id: a prefix search is a
 *                                     ZRANGEBYLEX over a bounded range
 * Both are written in the transaction that creates the account.
 */
export const accountIndexKeys = (prefix: string) => ({
  byTime: `${prefix}:accounts`,
  search: `${prefix}:accounts:search`,
  /** Set once the accounts made before the index existed have been added. */
  backfilled: `${prefix}:accounts:backfilled`,
});

const SEP = '\u0000';
const MAX_WORDS = 16;

/** The lowercased words of a name (letters and digits), at most MAX_WORDS of them. */
export const searchWords = (text: string) =>
  [
    ...new Set(
      text
        .toLowerCase()
        .split(/[^\p{L}\p{N}_]+/u)
        .filter(Boolean),
    ),
  ].slice(0, MAX_WORDS);

export function indexAccount(tx: ChainableCommander, prefix: string, account: Pick<Account, 'id' | 'name' | 'createdAt'>) {
  const keys = accountIndexKeys(prefix);
  tx.zadd(keys.byTime, account.createdAt, account.id);
  const members = [...searchWords(account.name), account.id].flatMap((word) => [0, `${word}${SEP}${account.id}`]);
  tx.zadd(keys.search, ...(members as [number, string]));
  return tx;
}

/** Newest first; `offset` is the previous page's nextCursor. */
export async function listAccountIds(redis: Redis, prefix: string, offset: number, limit: number) {
  const ids = await redis.zrevrange(accountIndexKeys(prefix).byTime, offset, offset + limit - 1);
  const total = await redis.zcard(accountIndexKeys(prefix).byTime);
  return { ids, next: offset + ids.length < total ? offset + ids.length : null };
}

/**
 * Accounts whose id, or one of whose name's words, starts with the query's longest word; the
 * other words of the query must each start a word of the name (checked by the caller, which
 * has the names). Reads at most `limit` index entries past `offset`.
 */
export async function searchAccountIds(redis: Redis, prefix: string, query: string, offset: number, limit: number) {
  const words = searchWords(query);
  const longest = words.sort((a, b) => b.length - a.length)[0];
  if (!longest) return { ids: [], words, next: null };
  const members = await redis.zrangebylex(accountIndexKeys(prefix).search, `[${longest}`, `[${longest}\u{10FFFF}`, 'LIMIT', offset, limit);
  const ids = [...new Set(members.map((m) => m.slice(m.indexOf(SEP) + 1)))];
  return { ids, words, next: members.length === limit ? offset + limit : null };
}

/**
 * Adds the accounts created before the index existed: one SCAN at api start until one has
 * finished (then a flag says so), never per request. Adding twice is harmless (ZADD).
 */
export async function backfillAccountIndex(redis: Redis, prefix: string) {
  const keys = accountIndexKeys(prefix);
  if (await redis.exists(keys.backfilled)) return 0;
  let added = 0;
  const pattern = /^.*:account:([a-z]+_[0-9a-f]{16})$/;
  for await (const batch of scanKeys(redis, `${prefix}:account:*`)) {
    const ids = batch.map((key) => pattern.exec(key)?.[1]).filter((id): id is string => Boolean(id));
    if (ids.length === 0) continue;
    const pipeline = redis.pipeline();
    for (const id of ids) pipeline.hmget(`${prefix}:account:${id}`, 'name', 'createdAt');
    const rows = (await pipeline.exec()) ?? [];
    const tx = redis.multi();
    ids.forEach((id, i) => {
      const [name, createdAt] = (rows[i]?.[1] ?? []) as Array<string | null>;
      indexAccount(tx, prefix, { id, name: name ?? '', createdAt: Number(createdAt ?? 0) });
    });
    await tx.exec();
    added += ids.length;
  }
  await redis.set(keys.backfilled, String(Date.now()));
  return added;
}
