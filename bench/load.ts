/**
 * Closed-loop load: `concurrency` callers, each sending its next request when the last one answered.
 * `send` is told which caller sends, so that a caller can keep to one address (and its connection)
 * as a client behind a load balancer does.
 */
export type Send = (caller: number) => Promise<Answer>;

/** What the tally reads of an answer: a fetch Response, or the lighter one of bodies.ts' postLean. */
export type Answer = Pick<Response, 'status' | 'text' | 'arrayBuffer'>;

export interface LoadResult {
  latenciesMs: number[];
  statuses: Record<string, number>;
  /** The first answer (or error) seen for each status other than 200, to say what went wrong. */
  firstErrors: Record<string, string>;
  wallMs: number;
}

/** Counts one answer by status; keeps the first body of each status other than 200. */
function tallier() {
  const latenciesMs: number[] = [];
  const statuses: Record<string, number> = {};
  const firstErrors: Record<string, string> = {};
  return {
    latenciesMs,
    statuses,
    firstErrors,
    async one(send: Send, caller: number) {
      const t0 = performance.now();
      let status = 'error';
      let said = '';
      try {
        const res = await send(caller);
        status = String(res.status);
        if (res.status === 200) await res.arrayBuffer();
        else said = (await res.text()).slice(0, 300);
      } catch (error) {
        said = String((error as Error).cause ?? error);
      }
      latenciesMs.push(performance.now() - t0);
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (status !== '200' && !(status in firstErrors)) firstErrors[status] = said;
    },
  };
}

export async function runLoad(total: number, concurrency: number, send: Send): Promise<LoadResult> {
  const tally = tallier();
  let next = 0;
  const started = performance.now();
  const caller = async (_: unknown, index: number) => {
    while (next < total) {
      next += 1;
      await tally.one(send, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, caller));
  const { one: _one, ...counted } = tally;
  return { ...counted, wallMs: performance.now() - started };
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** Closed-loop load for `durationMs`: `concurrency` callers, each sending again when answered. */
export async function runFor(durationMs: number, concurrency: number, send: Send): Promise<LoadResult> {
  const tally = tallier();
  const started = performance.now();
  const until = started + durationMs;
  const caller = async (_: unknown, index: number) => {
    while (performance.now() < until) await tally.one(send, index);
  };
  await Promise.all(Array.from({ length: concurrency }, caller));
  const { one: _one, ...counted } = tally;
  return { ...counted, wallMs: performance.now() - started };
}
