import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { BATCH_ID, type BatchError, type BatchList, type BatchObject, type BatchStatus } from './schema.js';
import { billingKeys } from '@relay/billing';
import { cancelScript } from './commands.js';
import { batchKeys } from './keys.js';

/** A batch as Redis holds it: the object's fields and what the workers keep of its progress. */
export interface BatchRecord {
  id: string;
  accountId: string;
  keyId: string;
  endpoint: string;
  inputFileId: string;
  status: BatchStatus;
  errors: BatchError[] | null;
  metadata: Record<string, string> | null;
  createdAt: number;
  expiresAt: number | null;
  stamps: Partial<
    Record<'in_progress_at' | 'finalizing_at' | 'completed_at' | 'failed_at' | 'expired_at' | 'cancelling_at' | 'cancelled_at', number>
  >;
  outputFileId: string | null;
  errorFileId: string | null;
  total: number;
  completed: number;
  failed: number;
  /** Lines refused when the batch was made (already counted in `failed`). */
  invalid: number;
  charged: number;
  images: number;
  audioMs: number;
  /** Base of the links output lines carry (the api's address as the batch's creator reached it). */
  linkBase: string;
  /** Keys the lines' job ids (keys.ts). */
  salt: string;
  /** The next line to feed: its number and byte offset; `fedEnd` once the input is read through. */
  cursorLine: number;
  cursorOffset: number;
  fedEnd: boolean;
  /** Finished lines recorded, and how many of them are written to parts (`parts` of them). */
  seq: number;
  flushed: number;
  parts: number;
  /** The api's limits and job options when the batch was made: its lines keep to them. */
  settings: BatchSettings;
}

export interface BatchSettings {
  /** The longest line (the api's `tuning.api.bodyLimitBytes`) and the largest inline image (`inputImageMaxBytes`). */
  maxLineBytes: number;
  inputImageMaxBytes: number;
  /** The line jobs' attempts, first backoff and how long they are kept (`tuning.api`'s jobAttempts, jobBackoffMs, jobKeepSeconds). */
  attempts: number;
  backoffMs: number;
  keepSeconds: number;
}

const num = (v: string | undefined) => (v === undefined || v === '' ? 0 : Number(v));
const optional = (v: string | undefined) => (v === undefined || v === '' ? null : Number(v));
const json = <T>(v: string | undefined): T | null => (v ? (JSON.parse(v) as T) : null);
const STAMPS = ['in_progress_at', 'finalizing_at', 'completed_at', 'failed_at', 'expired_at', 'cancelling_at', 'cancelled_at'] as const;

export function fromHash(h: Record<string, string>): BatchRecord {
  const stamps: BatchRecord['stamps'] = {};
  for (const name of STAMPS) if (h[name]) stamps[name] = Number(h[name]);
  return {
    id: h.id!,
    accountId: h.accountId!,
    keyId: h.keyId ?? '',
    endpoint: h.endpoint!,
    inputFileId: h.input_file_id!,
    status: h.status as BatchStatus,
    errors: json<BatchError[]>(h.errors),
    metadata: json<Record<string, string>>(h.metadata),
    createdAt: num(h.created_at),
    expiresAt: optional(h.expires_at),
    stamps,
    outputFileId: h.output_file_id || null,
    errorFileId: h.error_file_id || null,
    total: num(h.total),
    completed: num(h.completed),
    failed: num(h.failed),
    invalid: num(h.invalid),
    charged: num(h.charged),
    images: num(h.images),
    audioMs: num(h.audio_ms),
    linkBase: h.link_base ?? '',
    salt: h.salt ?? '',
    cursorLine: num(h.cursor_line) || 1,
    cursorOffset: num(h.cursor_offset),
    fedEnd: h.fed_end === '1',
    seq: num(h.seq),
    flushed: num(h.flushed),
    parts: num(h.parts),
    settings: JSON.parse(h.settings ?? '{}') as BatchSettings,
  };
}

/** When the rest should be done, from the pace of the lines run so far. */
function estimate(b: BatchRecord, nowSeconds: number): number | null {
  const started = b.stamps.in_progress_at;
  const run = b.completed + b.failed - b.invalid;
  const left = b.total - b.completed - b.failed;
  if (!started || run <= 0 || left <= 0 || nowSeconds <= started) return null;
  return Math.ceil(nowSeconds + left / (run / (nowSeconds - started)));
}

/** The Batch object clients see; `held` is what the batch's hold still keeps. */
export function toObject(b: BatchRecord, held: number, nowSeconds = Math.floor(Date.now() / 1000)): BatchObject {
  const at = (name: keyof BatchRecord['stamps']) => b.stamps[name] ?? null;
  return {
    id: b.id,
    object: 'batch',
    endpoint: b.endpoint,
    errors: b.errors ? { object: 'list', data: b.errors } : null,
    input_file_id: b.inputFileId,
    completion_window: '24h',
    status: b.status,
    output_file_id: b.outputFileId,
    error_file_id: b.errorFileId,
    created_at: b.createdAt,
    in_progress_at: at('in_progress_at'),
    expires_at: b.expiresAt,
    finalizing_at: at('finalizing_at'),
    completed_at: at('completed_at'),
    failed_at: at('failed_at'),
    expired_at: at('expired_at'),
    cancelling_at: at('cancelling_at'),
    cancelled_at: at('cancelled_at'),
    request_counts: { total: b.total, completed: b.completed, failed: b.failed },
    metadata: b.metadata,
    progress: {
      images: b.images,
      audio_seconds: Math.round(b.audioMs / 100) / 10,
      charged: b.charged,
      held,
      estimated_completion_at: b.status === 'in_progress' ? estimate(b, nowSeconds) : null,
    },
  };
}

/** Batches in Redis: a hash each, a listing per account, the set of batches workers tend to. */
export function createBatchRecords(redis: Redis, prefix: string) {
  const keys = batchKeys(prefix);
  const reservation = billingKeys(prefix).reservation;
  const held = async (id: string) => {
    const [state, amount] = await redis.hmget(reservation(id), 'state', 'amount');
    return state === 'reserved' ? Number(amount ?? 0) : 0;
  };

  const records = {
    keys,
    newId: () => `batch_${randomBytes(16).toString('hex')}`,
    newSalt: () => randomBytes(16).toString('hex'),

    /** Writes a new batch (fields as stored) and lists it; active ones are tended to by the workers. */
    async create(fields: Record<string, string | number>, active: boolean) {
      const id = String(fields.id);
      const multi = redis
        .multi()
        .hset(keys.batch(id), fields)
        .zadd(keys.account(String(fields.accountId)), Date.now(), id)
        .zadd(keys.all, Date.now(), id);
      if (active) multi.zadd(keys.active, Date.now(), id);
      await multi.exec();
    },

    async read(id: string): Promise<BatchRecord | undefined> {
      if (!BATCH_ID.test(id)) return undefined;
      const h = await redis.hgetall(keys.batch(id));
      return h.id ? fromHash(h) : undefined;
    },

    /** The account's batch, or undefined (another account's batch does not exist for this one). */
    async get(accountId: string, id: string) {
      const batch = await records.read(id);
      return batch?.accountId === accountId ? batch : undefined;
    },

    present: async (batch: BatchRecord) => toObject(batch, await held(batch.id)),

    async list(accountId: string, query: { after?: string | undefined; limit: number }): Promise<BatchList> {
      const key = keys.account(accountId);
      let start = 0;
      if (query.after) {
        const rank = BATCH_ID.test(query.after) ? await redis.zrevrank(key, query.after) : null;
        if (rank === null) return { object: 'list', data: [], first_id: null, last_id: null, has_more: false };
        start = rank + 1;
      }
      const ids = await redis.zrevrange(key, start, start + query.limit);
      const found = (await Promise.all(ids.slice(0, query.limit).map((id) => records.read(id)))).filter(
        (b): b is BatchRecord => b !== undefined,
      );
      const data = await Promise.all(found.map((b) => records.present(b)));
      return { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: ids.length > query.limit };
    },

    /** Every account's batches (or one account's), newest first, for the admin API: a page from `offset`. */
    async listAll(query: { accountId?: string | undefined; offset: number; limit: number }) {
      const key = query.accountId ? keys.account(query.accountId) : keys.all;
      const ids = await redis.zrevrange(key, query.offset, query.offset + query.limit);
      const found = (await Promise.all(ids.slice(0, query.limit).map((id) => records.read(id)))).filter(
        (b): b is BatchRecord => b !== undefined,
      );
      const batches = await Promise.all(found.map(async (b) => ({ ...(await records.present(b)), account_id: b.accountId })));
      return { batches, nextCursor: ids.length > query.limit ? String(query.offset + query.limit) : null };
    },

    /** Asks the batch to stop; the status it has afterwards (`cancelling` unless it had ended; undefined: no such batch). */
    async cancel(id: string): Promise<BatchStatus | undefined> {
      const status = await cancelScript(redis, { batch: keys.batch(id) }, { now: Math.floor(Date.now() / 1000) });
      if (status === 'cancelling') await redis.zadd(keys.active, Date.now(), id);
      return status;
    },

    /** Batch ids workers have something to do for, oldest first. */
    active: (limit: number) => redis.zrange(keys.active, 0, limit - 1),
  };
  return records;
}

export type BatchRecords = ReturnType<typeof createBatchRecords>;
