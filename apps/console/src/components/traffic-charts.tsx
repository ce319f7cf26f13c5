import { useMemo, useState } from 'preact/hooks';
import { withQuery } from '../api/client.js';
import type { Traffic } from '../api/types.js';
import { useAdmin } from '../api/use-admin.js';
import { Chart } from './chart.js';
import { count } from './format.js';
import { Loading } from './status.js';

const ms = (v: number) => (v >= 1000 ? `${(v / 1000).toFixed(1)} s` : `${Math.round(v)} ms`);

/** Requests, errors and latency per minute, as every api process recorded them (GET /admin/stats/traffic). */
export function TrafficCharts() {
  const [hours, setHours] = useState(3);
  const traffic = useAdmin<Traffic>(withQuery('/stats/traffic', { hours }), 30_000);
  const view = useMemo(() => {
    const minutes = traffic.data?.minutes ?? [];
    if (minutes.length === 0) return { x: [], load: [], latency: [] };
    // every minute of the window: no row means no request
    const last = Math.floor(Date.now() / 60_000);
    const first = last - hours * 60 + 1;
    const byMinute = new Map(minutes.map((m) => [m.at / 60_000, m]));
    const all = Array.from({ length: hours * 60 }, (_, i) => first + i);
    const pick = (f: (m: Traffic['minutes'][number]) => number, none: number | null) =>
      all.map((t) => (byMinute.has(t) ? f(byMinute.get(t)!) : none));
    return {
      x: all.map((t) => t * 60),
      load: [
        { label: 'requests', values: pick((m) => m.requests, 0) },
        { label: '4xx', values: pick((m) => m.clientErrors, 0) },
        { label: '5xx', values: pick((m) => m.serverErrors, 0) },
      ],
      latency: [
        { label: 'average', values: pick((m) => m.avgMs, null) },
        { label: 'p95 (bucket bound)', values: pick((m) => m.p95Ms, null) },
      ],
    };
  }, [traffic.data, hours]);

  return (
    <section aria-labelledby="traffic-title">
      <header class="row">
        <h2 id="traffic-title">Traffic</h2>
        <label class="inline">
          Window
          <select value={hours} onChange={(e) => setHours(Number(e.currentTarget.value))}>
            {[1, 3, 6, 24].map((h) => (
              <option value={h}>{h} h</option>
            ))}
          </select>
        </label>
      </header>
      <Loading ready={traffic.data !== undefined} error={traffic.error}>
        <ul class="chips" aria-label="Requests in the window by kind">
          {(traffic.data?.byGroup ?? []).map((g) => (
            <li>
              {g.group}: <strong>{count(g.requests)}</strong> requests, {count(g.errors)} errors
            </li>
          ))}
        </ul>
        <div class="grid-2">
          <Chart title="Requests and errors per minute" x={view.x} series={view.load} format={count} step="minute" />
          <Chart title="Latency per minute" x={view.x} series={view.latency} format={ms} step="minute" />
        </div>
      </Loading>
    </section>
  );
}
