import type { NextFunction, Request, Response } from 'express';
import { AppError } from '@relay/core';
import type { AccountsStore } from './accounts.js';
import { authFailuresOf } from './failures.js';

/** Where a request may carry its key; images take only Bearer, speech also Google's two forms. */
export type KeySource = (req: Request) => string | undefined;

export const bearerKey: KeySource = (req) => /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '')?.[1];

/** What Google's SDK sends (x-goog-api-key) and what its docs' curl uses (?key=). */
export const googleKey: KeySource = (req) => req.get('x-goog-api-key') ?? (typeof req.query.key === 'string' ? req.query.key : undefined);

export const OPENAI_KEYS = { sources: [bearerKey], hint: 'send it as Authorization: Bearer <API_KEY>' };
export const GOOGLE_KEYS = {
  sources: [googleKey, bearerKey],
  hint: 'send it as the x-goog-api-key header, the key query parameter, or Authorization: Bearer <API_KEY>',
};

/**
 * The caller's key, looked up by its hash. A wrong one is a 401 counted against the client's
 * address (failures.ts); an address with too many such failures in its window gets 429 for every
 * key until the window ends: its lookup and the address's count go to Redis together, one round trip.
 */
export function authenticate(accounts: AccountsStore, keys: { sources: KeySource[]; hint: string }) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const secret = keys.sources.map((source) => source(req)).find(Boolean);
    if (!secret) throw new AppError('unauthorized', `missing API key; ${keys.hint}`);
    const failures = authFailuresOf(req);
    const [caller] = await Promise.all([accounts.findCaller(secret), failures?.admit('key', req)]);
    if (!caller) {
      await failures?.failed('key', req, res.locals.requestId);
      throw new AppError('unauthorized', 'invalid or revoked API key; check that the API key is correct');
    }
    res.locals.caller = caller;
    next();
  };
}
