import type { Turns } from '../http/pace.js';
import type { Inbox } from './inbox.js';

/** Why a wait ended: the job may have finished (read its state), or the waiting is over. */
export type WaitEnd = 'event' | 'timeout' | 'left' | 'stopping';

/** A wait's end, with the result or the reason when it was the job's end (the notice carries them). */
export interface Ended {
  end: WaitEnd;
  completed?: { returnvalue: unknown };
  failed?: { failedReason: string };
}
type Outcome = Pick<Ended, 'completed' | 'failed'>;

/**
 * Every waiting request of this process behind its inbox (one listener, not one per request:
 * thousands of waits add nothing). A wait ends when its job completes, fails for good or is
 * removed (a cancelled job never completes), when its budget runs out, when its client leaves,
 * or when the api stops waiting (shutdown).
 */
export function createJobWaits(inbox: Inbox, stop: AbortSignal, turns: Turns) {
  const waiting = new Map<string, Set<(end: WaitEnd, outcome?: Outcome) => void>>();
  /** Waits that take the job's parts as they come (a streamed answer). */
  const parts = new Map<string, (data: string) => void>();
  /** Waits that hear when the job's upstream call begins (its events). */
  const starts = new Map<string, () => void>();
  const wake = (jobId: string, end: WaitEnd, outcome?: Outcome) => {
    const waiters = waiting.get(jobId);
    if (!waiters) return;
    waiting.delete(jobId);
    for (const waiter of waiters) waiter(end, outcome);
  };
  inbox.listen(({ type, jobId, data }) => {
    if (type === 'partial') return void parts.get(jobId)?.(data);
    if (type === 'started') return void starts.get(jobId)?.();
    if (!waiting.has(jobId)) return;
    // thousands of jobs may end in one read of the inbox: their answers are built a few per turn
    turns.run(() => {
      if (type === 'completed') return wake(jobId, 'event', { completed: { returnvalue: JSON.parse(data) as unknown } });
      if (type === 'failed') return wake(jobId, 'event', { failed: { failedReason: data } });
      wake(jobId, 'event');
    });
  });
  stop.addEventListener('abort', () => {
    for (const jobId of [...waiting.keys()]) wake(jobId, 'stopping');
  });

  return {
    /**
     * Registers at once, so the caller can look at the job's state afterwards without an event
     * falling between the look and the wait; `cancel` ends a wait the look made unnecessary.
     */
    register(
      jobId: string,
      budgetMs: number,
      client?: AbortSignal,
      onPart?: (data: string) => void,
      onStarted?: () => void,
    ): { ended: Promise<Ended>; cancel(): void } {
      if (onPart) parts.set(jobId, onPart);
      if (onStarted) starts.set(jobId, onStarted);
      let finish: (end: WaitEnd, outcome?: Outcome) => void = () => {};
      const ended = new Promise<Ended>((resolve) => {
        const onLeft = () => finish('left');
        const timer = setTimeout(() => finish('timeout'), budgetMs);
        finish = (end: WaitEnd, outcome?: Outcome) => {
          clearTimeout(timer);
          if (onPart && parts.get(jobId) === onPart) parts.delete(jobId);
          if (onStarted && starts.get(jobId) === onStarted) starts.delete(jobId);
          client?.removeEventListener('abort', onLeft);
          const waiters = waiting.get(jobId);
          waiters?.delete(finish);
          if (waiters?.size === 0) waiting.delete(jobId);
          resolve({ end, ...outcome });
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
