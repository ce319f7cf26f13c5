import type { NextFunction, Request, Response } from 'express';

/**
 * Runs queued work at most `perTurn` pieces per turn of the event loop. Thousands of requests
 * arriving at once, or thousands of jobs finishing at once, would otherwise all run their
 * synchronous steps (routing, parsing, checks; building and writing answers) in one turn,
 * holding timers and every other request back for hundreds of ms. Paced, each turn stays short
 * and the rest wait in order (a few µs when idle).
 */
export function createTurns(perTurn: number) {
  const waiting: Array<() => void> = [];
  let scheduled = false;
  const turn = () => {
    scheduled = false;
    for (const run of waiting.splice(0, perTurn)) run();
    // an immediate set from within the check phase runs at the next turn, after timers and I/O
    if (waiting.length) schedule();
  };
  const schedule = () => {
    scheduled = true;
    setImmediate(turn);
  };
  const run = (work: () => void) => {
    waiting.push(work);
    if (!scheduled) schedule();
  };
  return {
    run,
    /** Resolves at a turn of its own: a step that continues many requests at once (a batch of Redis replies) goes on a few at a time. */
    next: () => new Promise<void>((resolve) => run(resolve)),
    /** Express middleware: a request goes on at its turn. */
    middleware: (_req: Request, _res: Response, next: NextFunction) => run(next),
  };
}

export type Turns = ReturnType<typeof createTurns>;
