import Table from 'cli-table3';
import { formatMoney } from '@relay/core/money';

/**
 * The admin CLI's answers for people: lists as tables, one record as field/value rows, money
 * in units (the formatter the console uses), times in UTC. `--json` prints the API's answer
 * instead, for scripts.
 */

type Row = Record<string, unknown>;

/** Fields the admin API answers in micro-units. */
const MONEY = new Set(['balance', 'reserved', 'spent', 'spentThisMonth', 'amount', 'charged', 'price']);
/** Fields the admin API answers as epoch milliseconds. */
const TIMES = new Set(['createdAt', 'updatedAt', 'revokedAt', 'lastUsedAt', 'openUntil', 'finishedOn']);

/** The columns a list shows (all of its fields would not fit a terminal); a list not named here shows its scalar fields. */
const COLUMNS: Record<string, string[]> = {
  accounts: ['id', 'name', 'balance', 'reserved', 'spentThisMonth', 'weight', 'maxInFlight'],
  keys: ['id', 'name', 'rateLimitPerMinute', 'createdAt', 'lastUsedAt', 'revokedAt'],
  entries: ['at', 'type', 'model', 'units', 'amount', 'charged', 'balance', 'keyId', 'user', 'note'],
  channels: ['id', 'upstream', 'baseUrl', 'state', 'priority', 'weight', 'inFlight', 'recentCalls', 'latencyMs'],
  webhooks: ['id', 'url', 'events', 'createdAt'],
};

/** "spentThisMonth" -> "spent this month". */
const label = (field: string) => field.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();

function cell(field: string, value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'number' && MONEY.has(field)) return formatMoney(value);
  if (typeof value === 'number' && TIMES.has(field)) return new Date(value).toISOString().replace(/\.\d{3}Z$/, 'Z');
  if (Array.isArray(value) && value.every((v) => typeof v !== 'object')) return value.join(', ');
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** No colours (they would land in files and pipes), no line between rows. */
const plain = () => ({ style: { head: [] as string[], border: [] as string[], compact: true } });

/** Rows as a table with a header; numbers to the right. */
export function listTable(rows: Row[], columns: string[]): string {
  if (rows.length === 0) return '(none)';
  const numeric = (c: string) =>
    !TIMES.has(c) && rows.some((r) => typeof r[c] === 'number') && rows.every((r) => typeof r[c] === 'number' || r[c] == null);
  const table = new Table({ ...plain(), head: columns.map(label), colAligns: columns.map((c) => (numeric(c) ? 'right' : 'left')) });
  for (const row of rows) table.push(columns.map((c) => cell(c, row[c])));
  return table.toString();
}

/** One record as field/value rows; a nested list of records becomes a table of its own below it. */
export function recordTable(record: Row): string {
  const table = new Table(plain());
  const below: string[] = [];
  for (const [field, value] of Object.entries(record)) {
    if (isRecordList(value)) below.push(`${label(field)}:\n${listTable(value, columnsOf(field, value))}`);
    else table.push({ [label(field)]: cell(field, value) });
  }
  return [table.toString(), ...below].join('\n');
}

const isRecordList = (value: unknown): value is Row[] =>
  Array.isArray(value) && value.every((v) => typeof v === 'object' && v !== null && !Array.isArray(v));

function columnsOf(field: string, rows: Row[]): string[] {
  if (Object.hasOwn(COLUMNS, field)) return COLUMNS[field]!;
  const fields = new Set(rows.flatMap((r) => Object.keys(r)));
  return [...fields].filter((f) => rows.every((r) => typeof r[f] !== 'object' || r[f] === null));
}

/**
 * Any admin answer for people: an answer that is a page of one list ({accounts: [...],
 * nextCursor}) is that list's table, with the cursor to go on; anything else, its fields.
 */
export function forPeople(answer: unknown): string {
  if (typeof answer !== 'object' || answer === null) return String(answer);
  if (isRecordList(answer)) return listTable(answer, columnsOf('', answer));
  const entries = Object.entries(answer as Row);
  const lists = entries.filter(([, v]) => isRecordList(v));
  const rest = entries.filter(([k, v]) => !isRecordList(v) && k !== 'nextCursor');
  if (lists.length === 1 && rest.length === 0) {
    const [field, rows] = lists[0] as [string, Row[]];
    const next = (answer as Row).nextCursor;
    return listTable(rows, columnsOf(field, rows)) + (typeof next === 'string' ? `\nmore: add --cursor ${next}` : '');
  }
  return recordTable(answer as Row);
}
