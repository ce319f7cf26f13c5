/** Closed-loop load: `concurrency` callers, each sending its next request when the last one answered. */
export interface LoadResult {
  latenciesMs: number[];
  statuses: Record<string, number>;
  wallMs: number;
}

export async function runLoad(total: number, concurrency: number, send: () => Promise<Response>): Promise<LoadResult> {
  const latenciesMs: number[] = [];
  const statuses: Record<string, number> = {};
  let next = 0;
  const started = performance.now();
  const caller = async () => {
    while (next < total) {
      next += 1;
      const t0 = performance.now();
      let status = 'error';
      try {
        const res = await send();
        await res.arrayBuffer();
        status = String(res.status);
      } catch {
        // counted as an error status below
      }
      latenciesMs.push(performance.now() - t0);
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, caller));
  return { latenciesMs, statuses, wallMs: performance.now() - started };
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** Closed-loop load for `durationMs`: `concurrency` callers, each sending again when answered. */
export async function runFor(durationMs: number, concurrency: number, send: () => Promise<Response>): Promise<LoadResult> {
  const latenciesMs: number[] = [];
  const statuses: Record<string, number> = {};
  const started = performance.now();
  const until = started + durationMs;
  const caller = async () => {
    while (performance.now() < until) {
      const t0 = performance.now();
      let status = 'error';
      try {
        const res = await send();
        await res.arrayBuffer();
        status = String(res.status);
      } catch {
        // counted as an error status below
      }
      latenciesMs.push(performance.now() - t0);
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, caller));
  return { latenciesMs, statuses, wallMs: performance.now() - started };
}
