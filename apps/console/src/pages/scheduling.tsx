import type { ScheduleStats } from '../api/types.js';
import { useAdmin } from '../api/use-admin.js';
import { DataTable } from '../components/data-table.js';
import { count } from '../components/format.js';
import { Loading } from '../components/status.js';
import { accountPath } from '../layout/nav.js';

type Queue = ScheduleStats['queues'][number];
type Row = Queue['running'][number] & { lane?: string };

const accountLink = (row: Row) => <a href={accountPath(row.accountId)}>{row.accountId}</a>;

/** The fair schedule of each queue: what waits in which lane for which account, and what runs. */
export function SchedulingPage() {
  const stats = useAdmin<ScheduleStats>('/schedule', 5_000);
  return (
    <>
      <h1>Scheduling</h1>
      <p>
        Jobs wait in lanes (interactive before async before batch) and take turns between accounts by cost (images, or seconds of audio).
        Refreshed every 5 seconds.
      </p>
      <Loading ready={stats.data !== undefined} error={stats.error}>
        {(stats.data?.queues ?? []).map((q) => (
          <section aria-labelledby={`schedule-${q.name}`}>
            <h2 id={`schedule-${q.name}`}>{q.name}</h2>
            <DataTable
              caption={`Pending ${q.name} jobs per lane`}
              rows={q.lanes}
              rowKey={(l) => l.lane}
              columns={[
                { label: 'Lane', cell: (l) => l.lane },
                { label: 'Pending jobs', numeric: true, cell: (l) => count(l.jobs) },
                { label: 'Pending cost', numeric: true, cell: (l) => count(l.cost) },
              ]}
            />
            <div class="grid-2">
              <DataTable<Row>
                caption={`Pending ${q.name} jobs per account`}
                rows={q.lanes.flatMap((l) => l.accounts.map((a) => ({ ...a, lane: l.lane })))}
                rowKey={(r) => `${r.lane}-${r.accountId}`}
                empty="Nothing waits."
                columns={[
                  { label: 'Waiting: account', cell: accountLink },
                  { label: 'Lane', cell: (r) => r.lane },
                  { label: 'Jobs', numeric: true, cell: (r) => count(r.jobs) },
                  { label: 'Cost', numeric: true, cell: (r) => count(r.cost) },
                ]}
              />
              <DataTable<Row>
                caption={`Running ${q.name} jobs per account`}
                rows={q.running}
                rowKey={(r) => r.accountId}
                empty="Nothing runs."
                columns={[
                  { label: 'Running: account', cell: accountLink },
                  { label: 'Jobs', numeric: true, cell: (r) => count(r.jobs) },
                  { label: 'Cost', numeric: true, cell: (r) => count(r.cost) },
                ]}
              />
            </div>
            {q.dispatching > 0 ? <p class="error">{q.dispatching} picked but not yet handed to BullMQ.</p> : null}
          </section>
        ))}
      </Loading>
      <p class="muted">An account's weight and cap on jobs in flight are set on its page (Fair share).</p>
    </>
  );
}
