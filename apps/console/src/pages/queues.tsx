import type { QueueStats } from '../api/types.js';
import { useAdmin } from '../api/use-admin.js';
import { DataTable } from '../components/data-table.js';
import { DateCell } from '../components/cells.js';
import { count } from '../components/format.js';
import { Loading } from '../components/status.js';

type Queue = QueueStats['queues'][number];
const STATES = ['waiting', 'prioritized', 'delayed', 'active', 'completed', 'failed'] as const;

/** Jobs per queue and state and the latest failures, refreshed every 5 s; bull-board for the rest. */
export function QueuesPage() {
  const stats = useAdmin<QueueStats>('/stats/queues', 5_000);
  const board = stats.data?.dashboard ?? '/admin/queues';
  return (
    <>
      <h1>Queues</h1>
      <p>
        Counts from BullMQ, refreshed every 5 seconds. Job details, retries and removal are in the{' '}
        <a href={board} target="_blank" rel="noopener">
          BullMQ dashboard
        </a>{' '}
        (it asks for the admin token as a password).
      </p>
      <Loading ready={stats.data !== undefined} error={stats.error}>
        <DataTable<Queue>
          caption="Jobs per queue and state"
          rows={stats.data?.queues ?? []}
          rowKey={(q) => q.name}
          columns={[
            { label: 'Queue', cell: (q) => <a href={`${board}/queue/${encodeURIComponent(q.queue)}`}>{q.name}</a> },
            ...STATES.map((state) => ({ label: state, numeric: true, cell: (q: Queue) => count(q.counts[state]) })),
          ]}
        />
        <h2>Recent failures</h2>
        {(stats.data?.queues ?? []).map((q) => (
          <section aria-label={`Recent failures of ${q.name}`}>
            <h3>{q.name}</h3>
            <DataTable
              caption={`Recent failures of ${q.name}`}
              rows={q.recentFailures}
              rowKey={(f) => f.id}
              empty="No failed job kept."
              columns={[
                {
                  label: 'Job',
                  cell: (f) => <a href={`${board}/queue/${encodeURIComponent(q.queue)}/${encodeURIComponent(f.id)}`}>{f.id}</a>,
                },
                { label: 'When', cell: (f) => <DateCell at={f.finishedOn} /> },
                { label: 'Attempts', numeric: true, cell: (f) => count(f.attemptsMade) },
                { label: 'Reason', cell: (f) => f.failedReason },
              ]}
            />
          </section>
        ))}
      </Loading>
      <p>
        Jobs not yet handed to the workers wait in the fair schedule: see <a href="/console/scheduling">Scheduling</a> for pending jobs per
        lane and account.
      </p>
    </>
  );
}
