import type { QueueEvents } from 'bullmq';
import type { Turns } from '../http/pace.js';

/** Why a wait ended: the job may have finished (read its state), or the waiting is over. */
export type WaitEnd = 'event' | 'timeout' | 'left' | 'stopping';

/** A wait's end, with the result when it was the job's completion (the event carries it). */
export interface Ended {
  end: WaitEnd;
  completed?: { returnvalue: unknown };
}

/**
 * Every waiting request of one queue behind a single set of QueueEvents listeners (one per
 * event, not one per request: thousands of waits add no listeners). A wait ends when its job
 * completes, fails or is removed (a cancelled job never completes), when its budget runs out,
 * when its client leaves, or when the api stops waiting (shutdown).
 */
export function createJobWaits(events: QueueEvents, stop: AbortSignal, turns: Turns) {
  const waiting = new Map<string, Set<(end: WaitEnd, completed?: Ended['completed']) => void>>();
  const wake = (jobId: string, end: WaitEnd, completed?: Ended['completed']) => {
    const waiters = waiting.get(jobId);
    if (!waiters) return;
    waiting.delete(jobId);
    for (const waiter of waiters) waiter(end, completed);
  };
  // thousands of jobs may end in one read of the events stream: their answers are built a few per turn
  events.on('completed', ({ jobId, returnvalue }: { jobId: string; returnvalue: unknown }) =>
    turns.run(() => wake(jobId, 'event', { returnvalue })),
  );
  for (const name of ['failed', 'removed'] as const) {
    events.on(name, ({ jobId }: { jobId: string }) => turns.run(() => wake(jobId, 'event')));
  }
  stop.addEventListener('abort', () => {
    for (const jobId of [...waiting.keys()]) wake(jobId, 'stopping');
  });

  return {
    /**
     * Registers at once, so the caller can look at the job's state afterwards without an event
     * falling between the look and the wait; `cancel` ends a wait the look made unnecessary.
     */
    register(jobId: string, budgetMs: number, client?: AbortSignal): { ended: Promise<Ended>; cancel(): void } {
      let finish: (end: WaitEnd, completed?: Ended['completed']) => void = () => {};
      const ended = new Promise<Ended>((resolve) => {
        const onLeft = () => finish('left');
        const timer = setTimeout(() => finish('timeout'), budgetMs);
        finish = (end: WaitEnd, completed?: Ended['completed']) => {
          clearTimeout(timer);
          client?.removeEventListener('abort', onLeft);
          const waiters = waiting.get(jobId);
          waiters?.delete(finish);
          if (waiters?.size === 0) waiting.delete(jobId);
          resolve(completed ? { end, completed } : { end });
        };
        client?.addEventListener('abort', onLeft, { once: true });
        const waiters = waiting.get(jobId) ?? new Set();
        waiters.add(finish);
        waiting.set(jobId, waiters);
      });
      if (stop.aborted) finish('stopping');
      else if (client?.aborted) finish('left');
      return { ended, cancel: () => finish('event') };
    },
    /** Waits in progress (for metrics and tests: none may be left behind). */
    get size() {
      let count = 0;
      for (const waiters of waiting.values()) count += waiters.size;
      return count;
    },
  };
}

export type JobWaits = ReturnType<typeof createJobWaits>;
