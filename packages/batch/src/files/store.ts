import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { FILE_ID, type FileList, type FileObject } from './schema.js';

/** Where a file's bytes live in the bucket (outside `files/` and `inputs/`, which retention sweeps by their own ages). */
export const fileKey = (id: string) => `batch-files/${id}.jsonl`;

export interface StoredFile extends FileObject {
  accountId: string;
  /** Lines in the file (a last line without its newline counts). */
  lines: number;
}

/**
 * Files' metadata in Redis: a hash per file and a sorted set per account (by creation), so a
 * listing is one range read. Bytes are in the store, never here.
 */
export function createFileRecords(redis: Redis, prefix: string) {
  const fileHash = (id: string) => `${prefix}:file:${id}`;
  const accountFiles = (accountId: string) => `${prefix}:files:${accountId}`;
  const fromHash = (h: Record<string, string>): StoredFile => ({
    id: h.id!,
    object: 'file',
    bytes: Number(h.bytes),
    created_at: Number(h.created_at),
    filename: h.filename ?? '',
    purpose: h.purpose === 'batch_output' ? 'batch_output' : 'batch',
    status: 'processed',
    expires_at: null,
    status_details: null,
    accountId: h.accountId!,
    lines: Number(h.lines ?? 0),
  });

  return {
    newId: () => `file-${randomBytes(12).toString('hex')}`,

    async save(file: StoredFile) {
      await redis
        .multi()
        .hset(fileHash(file.id), { ...file, expires_at: '', status_details: '' })
        .zadd(accountFiles(file.accountId), Date.now(), file.id)
        .exec();
    },

    /** The account's file, or undefined (another account's file does not exist for this one). */
    async get(accountId: string, id: string): Promise<StoredFile | undefined> {
      if (!FILE_ID.test(id)) return undefined;
      const h = await redis.hgetall(fileHash(id));
      if (!h.id || h.accountId !== accountId) return undefined;
      return fromHash(h);
    },

    async remove(file: StoredFile) {
      await redis.multi().del(fileHash(file.id)).zrem(accountFiles(file.accountId), file.id).exec();
    },

    async list(
      accountId: string,
      query: { after?: string | undefined; limit: number; order: 'asc' | 'desc'; purpose?: string | undefined },
    ): Promise<FileList> {
      const key = accountFiles(accountId);
      const desc = query.order === 'desc';
      let start = 0;
      if (query.after) {
        const rank = FILE_ID.test(query.after) ? await (desc ? redis.zrevrank(key, query.after) : redis.zrank(key, query.after)) : null;
        start = rank === null ? Number.MAX_SAFE_INTEGER : rank + 1;
      }
      const data: FileObject[] = [];
      let hasMore = false;
      // pages of ids, skipping other purposes, until the page is full
      for (let offset = start; data.length < query.limit + 1 && offset !== Number.MAX_SAFE_INTEGER; offset += 500) {
        const ids = desc ? await redis.zrevrange(key, offset, offset + 499) : await redis.zrange(key, offset, offset + 499);
        if (ids.length === 0) break;
        const pipeline = redis.pipeline();
        for (const id of ids) pipeline.hgetall(fileHash(id));
        for (const [, h] of (await pipeline.exec()) ?? []) {
          const hash = h as Record<string, string>;
          if (!hash.id) continue;
          const file = fromHash(hash);
          if (query.purpose && file.purpose !== query.purpose) continue;
          if (data.length === query.limit) {
            hasMore = true;
            break;
          }
          const { accountId: _a, lines: _l, ...visible } = file;
          data.push(visible);
        }
        if (hasMore || ids.length < 500) break;
      }
      return { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: hasMore };
    },
  };
}

export type FileRecords = ReturnType<typeof createFileRecords>;

/** What a client is shown of a stored file. */
export const visibleFile = ({ accountId: _a, lines: _l, ...file }: StoredFile): FileObject => file;
