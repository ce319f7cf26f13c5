import { useEffect, useState } from 'preact/hooks';
import { admin, withQuery } from '../api/client.js';
import type { AdminCatalog, KeyRecord, LedgerEntry, LedgerPage } from '../api/types.js';
import { useAdmin } from '../api/use-admin.js';
import { DataTable } from '../components/data-table.js';
import { DateCell } from '../components/cells.js';
import { money } from '../components/format.js';
import { ErrorNote } from '../components/status.js';

interface Filters {
  from: string;
  to: string;
  model: string;
  key: string;
  user: string;
}
const NONE: Filters = { from: '', to: '', model: '', key: '', user: '' };
const PAGE = 50;
/** A datetime-local value (the operator's time zone) as the ISO instant the API takes. */
const iso = (local: string) => (local ? new Date(local).toISOString() : undefined);

/** Every balance change of the account, newest first, filtered by time, model, key and end user. */
export function Ledger({ accountId, keys, version }: { accountId: string; keys: KeyRecord[]; version: number }) {
  const catalog = useAdmin<AdminCatalog>('/catalog');
  const [draft, setDraft] = useState<Filters>(NONE);
  const [filters, setFilters] = useState<Filters>(NONE);
  const [entries, setEntries] = useState<LedgerEntry[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string>();

  const load = async (cursor?: string) => {
    const path = withQuery(`/accounts/${encodeURIComponent(accountId)}/usage`, {
      from: iso(filters.from),
      to: iso(filters.to),
      model: filters.model,
      key: filters.key,
      user: filters.user.trim(),
      limit: PAGE,
      cursor,
    });
    try {
      const page = await admin<LedgerPage>('GET', path);
      setEntries((before) => (cursor ? [...before, ...page.entries] : page.entries));
      setNext(page.nextCursor && page.entries.length === PAGE ? page.nextCursor : null);
      setError(undefined);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  useEffect(() => void load(), [accountId, filters, version]);

  const models = (catalog.data?.models ?? []).map((m) => m.id);
  const field = (name: keyof Filters) => ({
    value: draft[name],
    onInput: (e: { currentTarget: { value: string } }) => setDraft({ ...draft, [name]: e.currentTarget.value }),
  });
  const keyName = new Map(keys.map((k) => [k.id, k.name]));

  return (
    <section aria-labelledby="ledger-title">
      <h2 id="ledger-title">Ledger</h2>
      <form
        class="filters"
        aria-label="Ledger filters"
        onSubmit={(e) => {
          e.preventDefault();
          setFilters(draft);
        }}
      >
        <label>
          From
          <input type="datetime-local" name="from" {...field('from')} />
        </label>
        <label>
          To
          <input type="datetime-local" name="to" {...field('to')} />
        </label>
        <div>
          <label for="ledger-model">Model</label>
          <select id="ledger-model" name="model" {...field('model')} onChange={field('model').onInput}>
            <option value="">any</option>
            {models.map((m) => (
              <option value={m}>{m}</option>
            ))}
          </select>
        </div>
        <div>
          <label for="ledger-key">Key</label>
          <select id="ledger-key" name="key" {...field('key')} onChange={field('key').onInput}>
            <option value="">any</option>
            {keys.map((k) => (
              <option value={k.id}>
                {k.name} ({k.id})
              </option>
            ))}
          </select>
        </div>
        <label>
          End user
          <input name="user" maxLength={256} placeholder="the request's user" {...field('user')} />
        </label>
        <div class="row">
          <button type="submit">Filter</button>
          <button type="button" class="secondary outline" onClick={() => (setDraft(NONE), setFilters(NONE))}>
            Clear
          </button>
        </div>
      </form>
      <ErrorNote error={error} />
      <DataTable
        caption="Ledger entries, newest first"
        rows={entries}
        rowKey={(e) => e.id}
        empty="No entries match."
        columns={[
          { label: 'Time', cell: (e) => <DateCell at={e.at} /> },
          { label: 'Type', cell: (e) => e.type },
          { label: 'Model', cell: (e) => e.model || '—' },
          { label: 'Key', cell: (e) => (e.keyId ? (keyName.get(e.keyId) ?? e.keyId) : '—') },
          { label: 'User', cell: (e) => e.user ?? '—' },
          { label: 'Units', cell: (e) => e.units || '—' },
          { label: 'Change', numeric: true, cell: (e) => money(e.amount) },
          { label: 'Charged', numeric: true, cell: (e) => (e.type === 'settle' ? money(e.charged) : '') },
          { label: 'Balance after', numeric: true, cell: (e) => money(e.balance) },
          { label: 'Note', cell: (e) => e.note ?? '' },
        ]}
      />
      {next ? (
        <button type="button" class="secondary" onClick={() => load(next)}>
          Older entries
        </button>
      ) : null}
    </section>
  );
}
