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

/** What a wait needs of its client: whether it left, and to be told when it does (an AbortSignal is one). */
export interface Departure {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: DepartureListener, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: DepartureListener): void;
}
/** A function, or an object whose `handleEvent` is called (no closure of its own needed), as for an AbortSignal. */
export type DepartureListener = (() => void) | { handleEvent(): void };

/**
 * A client that may leave before its answer: `leave()` tells the few listeners its admission and
 * its wait put on it, once. What a waiting request holds for it is this object and an array, not
 * an AbortController's signal, event target and listener records (about 0.5 KB per waiting
 * request, measured with npm run bench:heap).
 */
export class ClientDeparture implements Departure {
  aborted = false;
  private listeners: DepartureListener[] | undefined;

  addEventListener(_type: 'abort', listener: DepartureListener) {
    if (this.aborted) return;
    (this.listeners ??= []).push(listener);
  }

  removeEventListener(_type: 'abort', listener: DepartureListener) {
    const index = this.listeners?.indexOf(listener) ?? -1;
    if (index >= 0) this.listeners!.splice(index, 1);
  }

  leave() {
    if (this.aborted) return;
    this.aborted = true;
    const listeners = this.listeners ?? [];
    this.listeners = undefined;
    for (const listener of listeners) {
      if (typeof listener === 'function') listener();
      else listener.handleEvent();
    }
  }
}

/**
 * One request's wait for its job, as `register` hands it out (`ended`, `cancel`): its timer and
 * its client's departure call it directly, so a wait holds no closures of its own.
 */
class Wait {
  readonly ended: Promise<Ended>;
  private resolve!: (ended: Ended) => void;
  timer: NodeJS.Timeout | undefined;
  done = false;

  constructor(
    private readonly waits: Waits,
    readonly jobId: string,
    private readonly client: Departure | undefined,
    readonly onPart: ((data: string) => void) | undefined,
    readonly onStarted: (() => void) | undefined,
  ) {
    this.ended = new Promise<Ended>((resolve) => (this.resolve = resolve));
  }

  /** Its client left. */
  handleEvent() {
    this.finish('left');
  }

  /** Ends a wait its caller's look made unnecessary. */
  cancel() {
    this.finish('event');
  }

  finish(end: WaitEnd, outcome?: Outcome) {
    if (this.done) return;
    this.done = true;
    clearTimeout(this.timer);
    this.client?.removeEventListener('abort', this);
    this.waits.drop(this);
    this.resolve(outcome ? { end, ...outcome } : { end });
  }
}

const timedOut = (wait: Wait) => wait.finish('timeout');

type Waits = { drop(wait: Wait): void };

/**
 * Every waiting request of this process behind its inbox (one listener, not one per request:
 * thousands of waits add nothing). A wait ends when its job completes, fails for good or is
 * removed (a cancelled job never completes), when its budget runs out, when its client leaves,
 * or when the api stops waiting (shutdown).
 */
export function createJobWaits(inbox: Inbox, stop: AbortSignal, turns: Turns) {
  // a job's one wait as itself; a second (a replay beside its first request) makes it an array
  const waiting = new Map<string, Wait | Wait[]>();
  let count = 0;
  /** Waits that take the job's parts as they come (a streamed answer). */
  const parts = new Map<string, (data: string) => void>();
  /** Waits that hear when the job's upstream call begins (its events). */
  const starts = new Map<string, () => void>();

  const waits: Waits = {
    drop(wait) {
      const { jobId, onPart, onStarted } = wait;
      if (onPart && parts.get(jobId) === onPart) parts.delete(jobId);
      if (onStarted && starts.get(jobId) === onStarted) starts.delete(jobId);
      const held = waiting.get(jobId);
      if (held === wait) waiting.delete(jobId);
      else if (Array.isArray(held)) {
        const index = held.indexOf(wait);
        if (index < 0) return;
        held.splice(index, 1);
        if (held.length === 1) waiting.set(jobId, held[0]!);
      } else return;
      count -= 1;
    },
  };

  const wake = (jobId: string, end: WaitEnd, outcome?: Outcome) => {
    const held = waiting.get(jobId);
    if (!held) return;
    for (const wait of Array.isArray(held) ? [...held] : [held]) wait.finish(end, outcome);
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
      client?: Departure,
      onPart?: (data: string) => void,
      onStarted?: () => void,
    ): { ended: Promise<Ended>; cancel(): void } {
      if (onPart) parts.set(jobId, onPart);
      if (onStarted) starts.set(jobId, onStarted);
      const wait = new Wait(waits, jobId, client, onPart, onStarted);
      const held = waiting.get(jobId);
      if (!held) waiting.set(jobId, wait);
      else if (Array.isArray(held)) held.push(wait);
      else waiting.set(jobId, [held, wait]);
      count += 1;
      if (stop.aborted) wait.finish('stopping');
      else if (client?.aborted) wait.finish('left');
      else {
        wait.timer = setTimeout(timedOut, budgetMs, wait);
        client?.addEventListener('abort', wait, { once: true });
      }
      return wait;
    },
    /** Waits in progress (for metrics and tests: none may be left behind). */
    get size() {
      return count;
    },
  };
}

export type JobWaits = ReturnType<typeof createJobWaits>;
