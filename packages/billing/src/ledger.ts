import type { Redis } from 'ioredis';
import { z } from 'zod';
import { billingKeys } from './keys.js';

export const ledgerEntrySchema = z.object({
  /** The Redis stream id: time-ordered, and the paging cursor. */
  id: z.string(),
  at: z.string(),
  type: z.enum(['reserve', 'settle', 'release', 'credit']),
  accountId: z.string(),
  keyId: z.string(),
  jobId: z.string(),
  model: z.string(),
  /** What the amount is for: "3 images", "in:120,out:900". */
  units: z.string(),
  /** The caller's end user, when the request named one (OpenAI's `user`). */
  user: z.string().optional(),
  note: z.string().optional(),
  /** Settlements: the upstream channel(s) that served the job (what it cost upstream is traceable). */
  channel: z.string().optional(),
  /** The change of the available balance this entry made, in micro-units. */
  amount: z.number().int(),
  /** What was charged (settlements only). */
  charged: z.number().int(),
  balance: z.number().int(),
  reserved: z.number().int(),
});
export type LedgerEntry = z.output<typeof ledgerEntrySchema>;

export const ledgerPageSchema = z
  .object({ entries: z.array(ledgerEntrySchema), nextCursor: z.string().nullable() })
  .meta({ id: 'LedgerPage' });

export interface LedgerQuery {
  /** Inclusive time bounds, epoch ms. */
  from?: number;
  to?: number;
  model?: string;
  /** Only the entries of this end user. */
  user?: string;
  /** Only the entries of jobs made with this key. */
  keyId?: string;
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
    ...(f.user ? { user: f.user } : {}),
    ...(f.note ? { note: f.note } : {}),
    ...(f.channel ? { channel: f.channel } : {}),
    amount: Number(f.amount),
    charged: Number(f.charged),
    balance: Number(f.balance),
    reserved: Number(f.reserved),
  };
}

/** Newest first, in pages; a model, user or key filter scans on until the page is full or the range ends. */
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
      const wanted =
        (!query.model || entry.model === query.model) &&
        (!query.user || entry.user === query.user) &&
        (!query.keyId || entry.keyId === query.keyId);
      if (wanted) entries.push(entry);
      if (entries.length === query.limit) return { entries, nextCursor: id };
    }
    if (batch.length === 0 || scanned >= 50_000) return { entries, nextCursor: batch.length ? batch.at(-1)![0] : null };
    end = `(${batch.at(-1)![0]}`;
  }
}
