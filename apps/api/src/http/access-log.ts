import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '@relay/core';

/** One line per request: method, path (no query: it may hold ?key=), status, duration. */
export function accessLog(log: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    // a line nobody keeps (a level above info) holds no listener on each waiting request
    if (!log.isLevelEnabled('info')) return next();
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      log.info(
        {
          requestId: res.locals.requestId,
          method: req.method,
          path: req.originalUrl.split('?')[0],
          status: res.statusCode,
          ms: Math.round(ms),
        },
        'request',
      );
    });
    next();
  };
}
