import { useMemo, useState } from 'preact/hooks';
import { withQuery } from '../api/client.js';
import type { DailyUsage } from '../api/types.js';
import { useAdmin } from '../api/use-admin.js';
import { Chart, type ChartSeries } from './chart.js';
import { count, money } from './format.js';
import { Loading } from './status.js';

const DAY = 86_400_000;

/** Every UTC day of the window, oldest first, as the server names them. */
const daysBack = (days: number, now = Date.now()) =>
  Array.from({ length: days }, (_, i) => new Date(now - (days - 1 - i) * DAY).toISOString().slice(0, 10));

function toSeries(usage: DailyUsage, days: string[], metric: 'charged' | 'units'): ChartSeries[] {
  const models = [...new Set(usage.days.map((row) => row.model))].sort();
  const at = new Map(days.map((day, i) => [day, i]));
  return models.map((model) => {
    const values: Array<number | null> = days.map(() => 0);
    for (const row of usage.days) if (row.model === model) values[at.get(row.day) ?? -1] = row[metric];
    return { label: model, values };
  });
}

/** Spend and units per day and model, from the aggregates the settlements keep (GET …/usage/daily). */
export function UsageCharts({ path, title }: { path: string; title: string }) {
  const [days, setDays] = useState(30);
  const usage = useAdmin<DailyUsage>(withQuery(path, { days }));
  const dayList = useMemo(() => daysBack(days), [days, usage.data]);
  const x = useMemo(() => (usage.data?.days.length ? dayList.map((d) => Date.parse(d) / 1000) : []), [dayList, usage.data]);
  const spend = useMemo(() => (usage.data ? toSeries(usage.data, dayList, 'charged') : []), [usage.data, dayList]);
  const units = useMemo(() => (usage.data ? toSeries(usage.data, dayList, 'units') : []), [usage.data, dayList]);
  const totals = useMemo(
    () =>
      (usage.data?.days ?? []).reduce((t, row) => ({ charged: t.charged + row.charged, jobs: t.jobs + row.jobs }), { charged: 0, jobs: 0 }),
    [usage.data],
  );

  return (
    <section aria-labelledby={`${path}-title`} class="usage">
      <header class="row">
        <h2 id={`${path}-title`}>{title}</h2>
        <label class="inline">
          Period
          <select value={days} onChange={(e) => setDays(Number(e.currentTarget.value))}>
            <option value={7}>7 days</option>
            <option value={30}>30 days</option>
            <option value={90}>90 days</option>
          </select>
        </label>
      </header>
      <Loading ready={usage.data !== undefined} error={usage.error}>
        <p class="totals">
          <span>
            Charged <strong data-testid="period-spend">{money(totals.charged)}</strong>
          </span>
          <span>
            Jobs <strong>{count(totals.jobs)}</strong>
          </span>
        </p>
        <div class="grid-2">
          <Chart title="Spend per day and model" x={x} series={spend} format={money} step="day" />
          <Chart title="Units per day and model (images; tokens for speech)" x={x} series={units} format={count} step="day" />
        </div>
      </Loading>
    </section>
  );
}
