import type { NextFunction, Request, Response } from 'express';
import { sendGoogleError } from './errors.js';

/**
 * Gemini's three ways in, and its three different refusals: a bad API key is a 400, no
 * credential at all a 403, a bad OAuth bearer token a 401.
 */
export function geminiAuth(keys: Set<string>) {
  return (req: Request, res: Response, next: NextFunction) => {
    const apiKey = req.get('x-goog-api-key') ?? (typeof req.query.key === 'string' ? req.query.key : undefined);
    const bearer = /^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1];
    if (apiKey !== undefined) {
      if (keys.has(apiKey)) return next();
      const message = 'API key not valid. Please pass a valid API key.';
      return sendGoogleError(res, 400, message, [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'API_KEY_INVALID',
          domain: 'googleapis.com',
          metadata: { service: 'generativelanguage.googleapis.com' },
        },
        { '@type': 'type.googleapis.com/google.rpc.LocalizedMessage', locale: 'en-US', message },
      ]);
    }
    if (bearer !== undefined) {
      if (keys.has(bearer)) return next();
      return sendGoogleError(
        res,
        401,
        'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
      );
    }
    sendGoogleError(
      res,
      403,
      "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
    );
  };
}
