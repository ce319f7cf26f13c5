import { DeleteObjectCommand, DeleteObjectsCommand, ListObjectsCommand } from '@aws-sdk/client-s3';
import type { Redis } from 'ioredis';
import { acquireLock, every, type BlobStore, type Logger } from '@relay/core';

export interface RetentionSettings {
  /** Results (`files/`) older than this are deleted; 0 keeps them for ever. */
  filesDays: number;
  /** Uploaded inputs (`inputs/`), needed only while their job runs; 0 keeps them for ever. */
  inputsDays: number;
  /** How often a sweep runs (one worker of the pool does it; the others skip that round). */
  everyMs: number;
}

const DAY_MS = 86_400_000;
/** Objects looked at per sweep and prefix, so one run's work is bounded whatever the bucket holds. */
const MAX_LISTED_PER_SWEEP = 100_000;

/**
 * Deletes what is older than its retention under one prefix, with plain ListObjects and
 * DeleteObjects: every S3-compatible store has them, unlike lifecycle rules. Keys are listed in
 * order, so a sweep cut short by its bound goes on where the next one starts over: what is left is
 * always the newer part of what it could not reach. Returns the count deleted.
 */
export async function sweepPrefix(store: BlobStore, prefix: string, olderThan: Date, limit = MAX_LISTED_PER_SWEEP): Promise<number> {
  // ListObjects (v1) with the last key as marker: every store pages it alike, where some fail
  // ListObjectsV2's continuation tokens (s3rver's need a cipher OpenSSL 3 no longer has)
  let marker: string | undefined;
  let listed = 0;
  let deleted = 0;
  do {
    const page = await store.client.send(new ListObjectsCommand({ Bucket: store.bucket, Prefix: prefix, Marker: marker, MaxKeys: 1000 }));
    const contents = page.Contents ?? [];
    listed += contents.length;
    const old = contents.filter((o) => o.Key && o.LastModified && o.LastModified < olderThan).map((o) => ({ Key: o.Key! }));
    if (old.length) deleted += await deleteAll(store, old);
    marker = page.IsTruncated ? (page.NextMarker ?? contents.at(-1)?.Key) : undefined;
  } while (marker && listed < limit);
  return deleted;
}

/**
 * One DeleteObjects call per page; where a store has no multi-object delete (Google Cloud
 * Storage's S3 API) or fails it, one DeleteObject per key instead.
 */
async function deleteAll(store: BlobStore, objects: Array<{ Key: string }>): Promise<number> {
  try {
    const answer = await store.client.send(new DeleteObjectsCommand({ Bucket: store.bucket, Delete: { Objects: objects, Quiet: true } }));
    if (!answer.Errors?.length) return objects.length;
  } catch (error) {
    if ((error as { $metadata?: unknown }).$metadata === undefined) throw error; // no answer at all: the store is away
  }
  let deleted = 0;
  for (const { Key } of objects) {
    await store.client.send(new DeleteObjectCommand({ Bucket: store.bucket, Key }));
    deleted += 1;
  }
  return deleted;
}

/**
 * The relay's own retention: every `everyMs` one worker (a Redis lock decides which) deletes
 * results and inputs past their age. A relay link to a deleted file answers 404.
 */
export function startRetention(
  store: BlobStore,
  redis: Redis,
  lockKey: string,
  settings: RetentionSettings,
  log: Logger,
  onDeleted: (prefix: string, n: number) => void,
) {
  const rules = [
    { prefix: 'files/', days: settings.filesDays },
    { prefix: 'inputs/', days: settings.inputsDays },
  ].filter((r) => r.days > 0);
  if (!rules.length) return { stop: () => {}, sweep: async () => {} };

  const sweep = async (now = Date.now()) => {
    // one sweep per round: the lock is never released, it lapses by itself a little before the
    // next round (so a dead sweeper blocks nothing)
    if (!(await acquireLock(redis, lockKey, Math.max(1_000, settings.everyMs - 1_000)))) return;
    for (const rule of rules) {
      const n = await sweepPrefix(store, rule.prefix, new Date(now - rule.days * DAY_MS));
      if (n) {
        onDeleted(rule.prefix, n);
        log.info({ prefix: rule.prefix, deleted: n, days: rule.days }, 'retention: deleted what passed its age');
      }
    }
  };
  const stop = every(
    settings.everyMs,
    () => sweep(),
    (error) => log.warn({ err: error.message }, 'retention sweep failed; trying again at the next round'),
  );
  return { stop, sweep };
}
