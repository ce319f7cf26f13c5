import type { IncomingMessage } from 'node:http';

/** First in, first out, without moving the rest at each take: a burst's line is thousands long. */
export function fifo<T = () => void>() {
  let items: T[] = [];
  let head = 0;
  return {
    push: (item: T) => void items.push(item),
    take(): T | undefined {
      if (head === items.length) return undefined;
      const item = items[head++];
      if (head === items.length) {
        items = [];
        head = 0;
      } else if (head >= 1_024 && head * 2 >= items.length) {
        items = items.slice(head);
        head = 0;
      }
      return item;
    },
    get length() {
      return items.length - head;
    },
  };
}

/**
 * Runs queued work at most `perTurn` pieces per turn of the event loop. Thousands of requests
 * arriving at once, or thousands of jobs finishing at once, would otherwise all run their
 * synchronous steps (routing, parsing, checks; building and writing answers) in one turn,
 * holding timers and every other request back for hundreds of ms. Paced, each turn stays short
 * and the rest wait in order (a few µs when idle).
 *
 * Work going on (an admission's next step, an answer) takes its turn before requests still to
 * begin (the middleware): behind a burst's thousands of arrivals each step of an admission waited
 * hundreds of turns, and everything it held (its reservation, payload, job, Redis replies) lived
 * long enough to be promoted to V8's old generation, where only a full collection frees it.
 */
export function createTurns(perTurn: number) {
  const goingOn = fifo();
  const arriving = fifo();
  let scheduled = false;
  const turn = () => {
    scheduled = false;
    // what one turn runs is taken first: work it queues waits for the next turn
    const batch: Array<() => void> = [];
    for (let work; batch.length < perTurn && (work = goingOn.take() ?? arriving.take());) batch.push(work);
    for (const work of batch) work();
    // an immediate set from within the check phase runs at the next turn, after timers and I/O
    if (goingOn.length || arriving.length) schedule();
  };
  const schedule = () => {
    scheduled = true;
    setImmediate(turn);
  };
  const run = (work: () => void) => {
    goingOn.push(work);
    if (!scheduled) schedule();
  };
  return {
    run,
    /** Resolves at a turn of its own: a step that continues many requests at once (a batch of Redis replies) goes on a few at a time. */
    next: () => new Promise<void>((resolve) => run(resolve)),
    /**
     * The line requests wait in (the api's server puts each one there before Express sees it): a
     * request goes on at its turn, after the work already going on; one `goesOnAtOnce` picks skips
     * the line. That is for probes and scrapes: behind a burst of
     * thousands a liveness probe would wait seconds, past its timeout, and the orchestrator would
     * restart the process that holds them.
     */
    middleware:
      (goesOnAtOnce: (req: IncomingMessage) => boolean = () => false) =>
      (req: IncomingMessage, _res: unknown, next: () => void) => {
        if (goesOnAtOnce(req)) return next();
        arriving.push(next);
        if (!scheduled) schedule();
      },
  };
}

export type Turns = ReturnType<typeof createTurns>;
