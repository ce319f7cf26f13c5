import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { admin, withQuery } from '../api/client.js';
import type { Account, AccountList, AccountSummary } from '../api/types.js';
import { DataTable } from '../components/data-table.js';
import { DateCell } from '../components/cells.js';
import { money } from '../components/format.js';
import { ErrorNote } from '../components/status.js';
import { accountPath } from '../layout/nav.js';

const PAGE = 25;

/** Every account with its money, newest first, searchable by a word of the name or the id. */
export function AccountsPage() {
  const [query, setQuery] = useState('');
  const [rows, setRows] = useState<AccountSummary[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const load = async (q: string, cursor?: string) => {
    setBusy(true);
    try {
      const page = await admin<AccountList>('GET', withQuery('/accounts', { q, limit: PAGE, cursor }));
      setRows((before) => (cursor ? [...before, ...page.accounts] : page.accounts));
      setNext(page.nextCursor);
      setError(undefined);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  // searches as the operator types, a moment after the last key
  useEffect(() => {
    const timer = setTimeout(() => void load(query.trim()), 200);
    return () => clearTimeout(timer);
  }, [query]);

  return (
    <>
      <h1>Accounts</h1>
      <div class="row wrap">
        <search class="grow">
          <label>
            Search accounts
            <input
              type="search"
              placeholder="a word of the name, or the start of the id"
              value={query}
              onInput={(e) => setQuery(e.currentTarget.value)}
            />
          </label>
        </search>
        <NewAccount />
      </div>
      <ErrorNote error={error} />
      <div aria-busy={busy} aria-live="polite">
        <DataTable
          caption="Accounts"
          rows={rows}
          rowKey={(a) => a.id}
          empty={query ? 'No account matches.' : 'No accounts yet.'}
          columns={[
            { label: 'Name', cell: (a) => <a href={accountPath(a.id)}>{a.name || '(no name)'}</a> },
            { label: 'Id', cell: (a) => <code>{a.id}</code> },
            { label: 'Balance', numeric: true, cell: (a) => money(a.balance) },
            { label: 'Reserved', numeric: true, cell: (a) => money(a.reserved) },
            { label: 'Spent this month', numeric: true, cell: (a) => money(a.spentThisMonth) },
            {
              label: 'Weight',
              numeric: true,
              cell: (a) => (a.maxInFlight === null ? String(a.weight) : `${a.weight} (at most ${a.maxInFlight} in flight)`),
            },
            { label: 'Created', cell: (a) => <DateCell at={a.createdAt} /> },
          ]}
        />
      </div>
      {next ? (
        <button type="button" class="secondary" onClick={() => load(query.trim(), next)} disabled={busy}>
          More accounts
        </button>
      ) : null}
    </>
  );
}

function NewAccount() {
  const { route } = useLocation();
  const [name, setName] = useState('');
  const [error, setError] = useState<string>();
  const create = async (e: Event) => {
    e.preventDefault();
    try {
      const account = await admin<Account>('POST', '/accounts', { name });
      route(accountPath(account.id));
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <form onSubmit={create} class="inline-form" aria-label="New account">
      <label>
        New account
        <input name="name" required maxLength={200} placeholder="name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <button type="submit">Create</button>
      <ErrorNote error={error} />
    </form>
  );
}
