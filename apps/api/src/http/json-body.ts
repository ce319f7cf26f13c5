import express, { type NextFunction, type Request, type Response } from 'express';
import { AppError, checkJsonShape, DEFAULT_JSON_SHAPE } from '@relay/core';

/** RFC 8259 8.1: JSON exchanged between systems must be UTF-8. */
const UTF8 = /^utf-?8$/i;

/**
 * JSON bodies only: another content type or charset is a 415, broken JSON a 400, an oversize
 * body a 413 (the error handler maps body-parser's errors), a body too deep or too busy to be
 * any request of this API a 400 before it is parsed. Anything but an object is a 400.
 */
export function jsonBody(limitBytes: number, maxStringBytes = DEFAULT_JSON_SHAPE.maxStringBytes) {
  const shape = { ...DEFAULT_JSON_SHAPE, maxStringBytes };
  const parse = express.json({
    limit: limitBytes,
    strict: true,
    type: () => true,
    verify: (_req, _res, raw) => {
      const refused = checkJsonShape(raw, shape);
      if (refused) throw new AppError('invalid_request', refused);
    },
  });
  return [
    (req: Request, _res: Response, next: NextFunction) => {
      if (!req.is('application/json')) {
        const given = req.get('content-type');
        return next(
          new AppError(
            'unsupported_media_type',
            given ? `Content-Type must be application/json, not ${given}` : 'Content-Type: application/json is required',
          ),
        );
      }
      const charset = /;\s*charset=("?)([^";]+)\1/i.exec(req.get('content-type') ?? '')?.[2];
      if (charset !== undefined && !UTF8.test(charset)) {
        return next(new AppError('unsupported_media_type', `JSON must be UTF-8, not charset ${charset}`));
      }
      next();
    },
    parse,
    (req: Request, _res: Response, next: NextFunction) => {
      const body: unknown = req.body;
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        return next(new AppError('invalid_request', 'the request body must be a JSON object'));
      }
      next();
    },
  ];
}
