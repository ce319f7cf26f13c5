import type { NextFunction, Request, Response } from 'express';
import type { SimContext } from './context.js';
import type { CallSeen, SimCall } from './stats.js';

/** Counts calls in flight and refuses beyond the configured concurrency, like a busy upstream. */
export function tracked(ctx: SimContext, api: SimCall['api'], refuse: (res: Response) => void) {
  return (req: Request, res: Response, next: NextFunction) => {
    const full = ctx.config.SIM_MAX_CONCURRENT > 0 && ctx.stats.inflight >= ctx.config.SIM_MAX_CONCURRENT;
    const startedAt = ctx.stats.begin();
    // a call ends when its answer is handed to the socket ('finish'), before the client can
    // react to it; 'close' still ends calls that never got one (dropped, hung up)
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      ctx.stats.end(api, res.writableFinished ? res.statusCode : 0, startedAt, res.locals.seen as CallSeen | undefined);
    };
    res.on('finish', end);
    res.on('close', end);
    if (full) return refuse(res);
    next();
  };
}
