import type { Redis } from 'ioredis';
import { billingKeys } from './billing.js';

export interface LedgerEntry {
  id: string;
  at: string;
  type: 'reserve' | 'settle' | 'release' | 'credit';
  accountId: string;
  keyId: string;
  jobId: string;
  model: string;
  units: string;
  note?: string;
  /** The change of the available balance this entry made. */
  amount: number;
  /** What was charged (settlements only). */
  charged: number;
  balance: number;
  reserved: number;
}

export interface LedgerQuery {
  /** Inclusive time bounds, epoch ms. */
  from?: number;
  to?: number;
  model?: string;
  limit: number;
  /** The `nextCursor` of the previous page. */
  cursor?: string;
}

function toEntry(id: string, fields: string[]): LedgerEntry {
  const f: Record<string, string> = {};
  for (let i = 0; i < fields.length; i += 2) f[fields[i]!] = fields[i + 1]!;
  return {
    id,
    at: new Date(Number(id.split('-')[0])).toISOString(),
    type: f.type as LedgerEntry['type'],
    accountId: f.accountId ?? '',
    keyId: f.keyId ?? '',
    jobId: f.jobId ?? '',
    model: f.model ?? '',
    units: f.units ?? '',
    ...(f.note ? { note: f.note } : {}),
    amount: Number(f.amount),
    charged: Number(f.charged),
    balance: Number(f.balance),
    reserved: Number(f.reserved),
  };
}

/** Newest first, in pages; a model filter scans on until the page is full or the range ends. */
export async function readLedger(redis: Redis, prefix: string, accountId: string, query: LedgerQuery) {
  const key = billingKeys(prefix).ledger(accountId);
  const entries: LedgerEntry[] = [];
  let end = query.cursor ? `(${query.cursor}` : query.to !== undefined ? String(query.to) : '+';
  const start = query.from !== undefined ? String(query.from) : '-';
  let scanned = 0;
  for (;;) {
    const batch = (await redis.xrevrange(key, end, start, 'COUNT', Math.max(query.limit, 100))) as Array<[string, string[]]>;
    for (const [id, fields] of batch) {
      scanned += 1;
      const entry = toEntry(id, fields);
      if (!query.model || entry.model === query.model) entries.push(entry);
      if (entries.length === query.limit) return { entries, nextCursor: id };
    }
    if (batch.length === 0 || scanned >= 50_000) return { entries, nextCursor: batch.length ? batch.at(-1)![0] : null };
    end = `(${batch.at(-1)![0]}`;
  }
}
