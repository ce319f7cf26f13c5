import type { ChainableCommander, Redis } from 'ioredis';
import { scanKeys } from '@relay/core';
import type { Account } from './records.js';

/**
 * The indexes that let the console list and search accounts without KEYS or SCAN:
 *   {p}:accounts          sorted set  account id by createdAt (newest first when listed)
 *   {p}:accounts:search   sorted set  "{word}\0{id}" at score 0, one member per word of the
 *                                     lowercased name and one for the id: a prefix search is a
 *                                     ZRANGEBYLEX over a bounded range
 *   {p}:accounts:names    hash        the name as compared (nameKey) -> the id of the account
 *                                     holding it: no two accounts share a name
 * All are written in the step that creates the account (accounts.ts).
 */
export const accountIndexKeys = (prefix: string) => ({
  byTime: `${prefix}:accounts`,
  search: `${prefix}:accounts:search`,
  names: `${prefix}:accounts:names`,
  /** Set once the accounts made before the index existed have been added. */
  backfilled: `${prefix}:accounts:backfilled`,
  /** Set once the accounts made before the name index existed have been added to it. */
  namesBackfilled: `${prefix}:accounts:names:backfilled`,
});

/** A name as two names are compared: trimmed, runs of white space as one space, case ignored ("Acme  Co" is "acme co"). */
export const nameKey = (name: string) => name.normalize('NFC').trim().replace(/\s+/gu, ' ').toLowerCase();

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

/** The account's members of the search index: one per word of its name, one for its id. */
export const searchMembers = (account: Pick<Account, 'id' | 'name'>) =>
  [...searchWords(account.name), account.id].map((word) => `${word}${SEP}${account.id}`);

/** Adds an account made before the indexes existed; its name is indexed unless another account holds it. */
function indexAccount(tx: ChainableCommander, prefix: string, account: Pick<Account, 'id' | 'name' | 'createdAt'>) {
  const keys = accountIndexKeys(prefix);
  tx.zadd(keys.byTime, account.createdAt, account.id);
  tx.zadd(keys.search, ...(searchMembers(account).flatMap((member) => [0, member]) as [number, string]));
  tx.hsetnx(keys.names, nameKey(account.name), account.id);
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
 * Adds the accounts created before the indexes existed: one SCAN at api start until one has
 * finished (then flags say so), never per request. Adding twice is harmless (ZADD, HSETNX); of
 * accounts that already shared a name, the first one found holds it (the others keep theirs).
 */
export async function backfillAccountIndex(redis: Redis, prefix: string) {
  const keys = accountIndexKeys(prefix);
  if ((await redis.exists(keys.backfilled, keys.namesBackfilled)) === 2) return 0;
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
  await redis.mset(keys.backfilled, String(Date.now()), keys.namesBackfilled, String(Date.now()));
  return added;
}
