import { AppError } from '@relay/core';
import type { Departure } from './job-waits.js';

/**
 * Admissions one api process runs at once. An admission's Redis steps take a few ms, so 256 in
 * flight admit tens of thousands of requests a second: the limit never binds under steady load,
 * only in a burst (measured: 10,000 callers at once, RSS and event-loop p99 in docs/benchmarks.md).
 */
export const ADMISSIONS_IN_FLIGHT = 256;

/**
 * At most `limit` admissions of this process in flight at once; the others wait their turn in
 * arrival order, holding nothing but their place. A burst of thousands of requests otherwise
 * starts every admission together: their Redis commands, scripts' replies and BullMQ jobs are
 * all alive at the same moment, V8 promotes them to the old generation, and the heap grows by
 * a hundred MB more than the waiting requests need, collected later in pauses of hundreds of ms
 * (npm run bench, 10,000 callers waiting at once). A slot is held only while the admission talks
 * to Redis: building the payload (fetching and uploading input images) happens `outside` it, so a
 * slow input never holds up other callers. An admission coming back from outside goes before
 * every request still waiting to begin: it holds money, a place in the schedule and its payload,
 * and behind a burst's line it would hold them for seconds (all of it promoted, measured: the
 * whole burst half admitted at once).
 */
export function createAdmissionGate(limit: number) {
  let inside = 0;
  // a Set keeps arrival order and lets a caller who leaves drop out of the line
  const line = new Set<() => void>();
  // admissions back from outside: before the line, in the order they came back
  const resumed: Array<() => void> = [];

  const resume = (): Promise<void> => {
    if (inside < limit && resumed.length === 0) {
      inside += 1;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) =>
      resumed.push(() => {
        inside += 1;
        resolve();
      }),
    );
  };

  const enter = (signal: Departure): Promise<void> => {
    if (inside < limit && line.size === 0 && resumed.length === 0) {
      inside += 1;
      return Promise.resolve();
    }
    if (signal.aborted) return Promise.reject(left());
    return new Promise<void>((resolve, reject) => {
      const admitted = () => {
        signal.removeEventListener('abort', gone);
        inside += 1;
        resolve();
      };
      const gone = () => {
        line.delete(admitted);
        reject(left());
      };
      line.add(admitted);
      signal.addEventListener('abort', gone, { once: true });
    });
  };

  const leave = () => {
    inside -= 1;
    const back = resumed.shift();
    if (back) return back();
    const next = line.values().next();
    if (!next.done) {
      line.delete(next.value);
      next.value();
    }
  };

  return {
    /** Runs an admission within a slot; a caller who leaves while waiting for one is never admitted. */
    async admit<T>(signal: Departure, work: () => Promise<T>): Promise<T> {
      await enter(signal);
      try {
        return await work();
      } finally {
        leave();
      }
    },
    /** Within an admission: work that does not need Redis gives its slot up meanwhile, and takes one again after. */
    async outside<T>(work: () => Promise<T>): Promise<T> {
      leave();
      try {
        return await work();
      } finally {
        // not abortable: the admission goes on to finish or undo what it holds, before any new one
        await resume();
      }
    },
    /** How many admissions hold a slot, and how many wait for one. */
    load: () => ({ inside, waiting: line.size + resumed.length }),
  };
}

export type AdmissionGate = ReturnType<typeof createAdmissionGate>;

const left = () => new AppError('cancelled', 'the client left before its request was admitted', { retryable: false });
