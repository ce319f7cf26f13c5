import express, { type NextFunction, type Request, type Response } from 'express';
import { AppError } from '@relay/core';

/**
 * JSON bodies only: another content type is a 415, broken JSON a 400, an oversize body a
 * 413 (the error handler maps body-parser's errors). Anything but an object is a 400.
 */
export function jsonBody(limitBytes: number) {
  const parse = express.json({ limit: limitBytes, strict: true, type: () => true });
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
