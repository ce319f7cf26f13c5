import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

export interface ChartSeries {
  label: string;
  values: Array<number | null>;
}

const PALETTE = ['#2563eb', '#d97706', '#059669', '#db2777', '#7c3aed', '#0891b2', '#65a30d', '#dc2626'];

const timeLabel = (seconds: number, step: 'day' | 'minute') =>
  step === 'day' ? new Date(seconds * 1000).toISOString().slice(5, 10) : new Date(seconds * 1000).toTimeString().slice(0, 5);

/**
 * A uPlot chart (canvas) of series over time, with the same numbers as a table for screen
 * readers and keyboards (the canvas itself is hidden from them).
 */
export function Chart({
  title,
  x,
  series,
  format,
  step,
  height = 220,
}: {
  title: string;
  /** Unix seconds. */
  x: number[];
  series: ChartSeries[];
  format: (value: number) => string;
  step: 'day' | 'minute';
  height?: number;
}) {
  const box = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const el = box.current;
    if (!el || x.length === 0) return;
    const ink = getComputedStyle(el).color;
    const grid = { stroke: 'rgba(128,128,128,0.2)' };
    const plot = new uPlot(
      {
        width: el.clientWidth || 600,
        height,
        scales: { x: { time: true } },
        cursor: { points: { size: 6 } },
        series: [
          { label: step === 'day' ? 'day' : 'minute', value: (_u, v) => (v === null ? '—' : timeLabel(v, step)) },
          ...series.map((s, i) => {
            const color = PALETTE[i % PALETTE.length]!;
            return {
              label: s.label,
              stroke: color,
              fill: `${color}33`,
              width: 2,
              // sparse series (a few minutes with traffic) need their points to be seen at all
              points: { show: s.values.filter((v) => v !== null).length < 60 },
              value: (_u: uPlot, v: number | null) => (v === null ? '—' : format(v)),
            };
          }),
        ],
        axes: [
          { stroke: ink, grid, values: (_u, ticks) => ticks.map((t) => timeLabel(t, step)) },
          { stroke: ink, grid, size: 72, values: (_u, ticks) => ticks.map((t) => format(t)) },
        ],
      },
      [x, ...series.map((s) => s.values)],
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: el.clientWidth, height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [x, series, format, step, height]);

  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      {x.length === 0 ? (
        <p class="muted">No data in this period yet.</p>
      ) : (
        <>
          <div ref={box} class="chart-canvas" aria-hidden="true" data-points={x.length} />
          <details>
            <summary>{title} as a table</summary>
            <div class="table-scroll">
              <table>
                <thead>
                  <tr>
                    <th scope="col">{step}</th>
                    {series.map((s) => (
                      <th scope="col" class="num">
                        {s.label}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {x.map((t, row) => (
                    <tr>
                      <th scope="row">{timeLabel(t, step)}</th>
                      {series.map((s) => (
                        <td class="num">{s.values[row] === null || s.values[row] === undefined ? '—' : format(s.values[row])}</td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </details>
        </>
      )}
    </figure>
  );
}
