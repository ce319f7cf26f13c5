import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

const SAFE_ID = /^[\w.:-]{1,128}$/;

/** Takes X-Request-Id when it is sane, or makes one; echoes it and carries it into jobs and logs. */
export function requestId(req: Request, res: Response, next: NextFunction) {
  const given = req.get('x-request-id');
  res.locals.requestId = given && SAFE_ID.test(given) ? given : randomUUID();
  res.set('X-Request-Id', res.locals.requestId);
  next();
}
