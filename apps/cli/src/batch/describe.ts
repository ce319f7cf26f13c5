import type { Batch } from 'openai/resources/batches';
import { formatMoney } from '@relay/core/money';

/** The relay's own field on a batch: what its lines were charged so far and when it should end. */
export const progressOf = (batch: Batch) =>
  (batch as Batch & { progress?: { charged: number; estimated_completion_at: number | null } }).progress;

const ENDED = new Set(['completed', 'failed', 'expired', 'cancelled']);
export const hasEnded = (batch: Batch) => ENDED.has(batch.status);

/**
 * Seconds until the relay expects the batch to end; undefined when there is nothing to wait
 * for by that estimate: ended, cancelling (its lines still at the upstream finish, no new one
 * starts), or no estimate yet.
 */
export function secondsLeft(batch: Batch, nowSeconds: number): number | undefined {
  if (batch.status !== 'in_progress' && batch.status !== 'validating' && batch.status !== 'finalizing') return undefined;
  const at = progressOf(batch)?.estimated_completion_at;
  return typeof at === 'number' ? Math.max(0, Math.round(at - nowSeconds)) : undefined;
}

/** 45s, 12m, 3h 05m. */
export function duration(seconds: number): string {
  if (seconds < 90) return `${seconds}s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 90) return `${minutes}m`;
  return `${Math.floor(minutes / 60)}h ${String(minutes % 60).padStart(2, '0')}m`;
}

const time = (seconds: number | null | undefined) =>
  typeof seconds === 'number' ? new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z') : undefined;

/** When it reached the status it is in (the matching *_at field). */
function since(batch: Batch): string | undefined {
  const at = (batch as unknown as Record<string, number | null | undefined>)[`${batch.status}_at`];
  return time(at);
}

/**
 * A batch for people (`status`, `cancel`): where it stands, its lines, money in units through
 * the formatter the console uses, its times in UTC and its files. `--json` prints the API's
 * object instead, for scripts.
 */
export function describeBatch(batch: Batch, nowSeconds: number): string {
  const counts = batch.request_counts ?? { total: 0, completed: 0, failed: 0 };
  const left = secondsLeft(batch, nowSeconds);
  const rows: Array<[string, string | undefined]> = [
    ['status', `${batch.status}${since(batch) ? ` since ${since(batch)}` : ''}`],
    ['lines', `${counts.completed} done, ${counts.failed} failed of ${counts.total}`],
    ['charged', formatMoney(progressOf(batch)?.charged ?? 0)],
    ['endpoint', batch.endpoint],
    ['created', time(batch.created_at)],
    ['ends', left === undefined ? undefined : `in about ${duration(left)} (estimate)`],
    ['expires', hasEnded(batch) ? undefined : time(batch.expires_at)],
    ['output file', batch.output_file_id ?? undefined],
    ['error file', batch.error_file_id ?? undefined],
  ];
  const shown = rows.filter((row): row is [string, string] => row[1] !== undefined);
  const width = Math.max(...shown.map(([label]) => label.length));
  const errors = (batch.errors?.data ?? []).map((e) => `  ! ${e.message}`);
  return [`batch ${batch.id}`, ...shown.map(([label, value]) => `  ${`${label}:`.padEnd(width + 2)}${value}`), ...errors].join('\n');
}
