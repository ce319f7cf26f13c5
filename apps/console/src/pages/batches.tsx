import { useState } from 'preact/hooks';
import { admin, download, withQuery } from '../api/client.js';
import type { AdminBatch, AdminBatchList } from '../api/types.js';
import { useAdmin } from '../api/use-admin.js';
import { DataTable } from '../components/data-table.js';
import { IdCell, DateCell } from '../components/cells.js';
import { count, money } from '../components/format.js';
import { ErrorNote, Loading } from '../components/status.js';
import { accountPath } from '../layout/nav.js';
import './batches.css';

const ENDED = new Set(['completed', 'failed', 'expired', 'cancelled']);
const RUNNING = new Set(['validating', 'in_progress']);

function Progress({ batch }: { batch: AdminBatch }) {
  const { total, completed, failed } = batch.request_counts;
  const done = completed + failed;
  return (
    <span class="progress-cell">
      <progress value={done} max={Math.max(total, 1)} aria-label={`${batch.id}: ${done} of ${total} lines done`} />
      <span class="nowrap">
        {count(done)} / {count(total)}
        {failed ? ` (${count(failed)} failed)` : ''}
      </span>
    </span>
  );
}

/** Every account's batches, newest first, refreshed every 5 s: progress, cancel, downloads. */
export function BatchesPage() {
  const [account, setAccount] = useState('');
  const [cursor, setCursor] = useState<string>();
  const list = useAdmin<AdminBatchList>(withQuery('/batches', { account: account.trim() || undefined, cursor, limit: 20 }), 5_000);
  const [error, setError] = useState<string>();
  const act = async (work: () => Promise<unknown>) => {
    try {
      await work();
      setError(undefined);
      list.reload();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const get = (batch: AdminBatch, path: string, filename: string) =>
    act(() => download(`/batches/${encodeURIComponent(batch.id)}${path}`, filename));

  return (
    <>
      <h1>Batches</h1>
      <p>
        Batches sent through the Batches API, by any account. Lines run in the batch lane, on capacity nobody waiting needs. Refreshed every
        5 seconds.
      </p>
      <form class="inline-form" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>
          Account
          <input
            name="account"
            placeholder="acct_… (all accounts)"
            value={account}
            onInput={(e) => (setAccount(e.currentTarget.value), setCursor(undefined))}
          />
        </label>
      </form>
      <ErrorNote error={error} />
      <Loading ready={list.data !== undefined} error={list.error}>
        <DataTable<AdminBatch>
          caption="Batches"
          rows={list.data?.batches ?? []}
          rowKey={(b) => b.id}
          empty="No batch yet."
          columns={[
            // the batch and its account in one column: two id columns left no room for the dates at 1280 px
            {
              label: 'Batch / account',
              cell: (b) => (
                <span class="batch-cell">
                  <IdCell id={b.id} />
                  <a href={accountPath(b.account_id)}>
                    <IdCell id={b.account_id} />
                  </a>
                </span>
              ),
            },
            {
              label: 'Status',
              cell: (b) => (
                <>
                  <span class={`batch-status batch-${b.status}`}>{b.status}</span>
                  <br />
                  <small class="muted">{b.endpoint}</small>
                </>
              ),
            },
            { label: 'Progress', cell: (b) => <Progress batch={b} /> },
            { label: 'Charged', numeric: true, cell: (b) => money(b.progress.charged) },
            { label: 'Created', cell: (b) => <DateCell at={b.created_at * 1000} /> },
            {
              label: 'Actions',
              cell: (b) => (
                <span class="row wrap">
                  {RUNNING.has(b.status) && (
                    <button
                      type="button"
                      class="secondary outline small"
                      onClick={() => act(() => admin('POST', `/batches/${encodeURIComponent(b.id)}/cancel`))}
                      aria-label={`Cancel batch ${b.id}`}
                    >
                      Cancel
                    </button>
                  )}
                  {b.output_file_id && (
                    <button
                      type="button"
                      class="outline small"
                      onClick={() => get(b, '/files/output', `${b.id}_output.jsonl`)}
                      aria-label={`Download the output of ${b.id}`}
                    >
                      Output
                    </button>
                  )}
                  {b.error_file_id && (
                    <button
                      type="button"
                      class="outline small"
                      onClick={() => get(b, '/files/error', `${b.id}_errors.jsonl`)}
                      aria-label={`Download the errors of ${b.id}`}
                    >
                      Errors
                    </button>
                  )}
                  {ENDED.has(b.status) && (
                    <button
                      type="button"
                      class="outline small"
                      onClick={() => get(b, '/archive', `${b.id}.zip`)}
                      aria-label={`Download the archive of ${b.id}`}
                    >
                      Archive
                    </button>
                  )}
                </span>
              ),
            },
          ]}
        />
        {list.data?.nextCursor && (
          <button type="button" class="secondary" onClick={() => setCursor(list.data!.nextCursor!)}>
            Older batches
          </button>
        )}
      </Loading>
    </>
  );
}
