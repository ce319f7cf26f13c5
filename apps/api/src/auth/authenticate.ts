import type { NextFunction, Request, Response } from 'express';
import { AppError } from '@relay/core';
import type { AccountsStore } from './accounts.js';

/** Where a request may carry its key; images take only Bearer, speech also Google's two forms. */
export type KeySource = (req: Request) => string | undefined;

export const bearerKey: KeySource = (req) => /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '')?.[1];

export function authenticate(accounts: AccountsStore, sources: KeySource[]) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const secret = sources.map((source) => source(req)).find(Boolean);
    if (!secret) {
      throw new AppError('unauthorized', 'missing API key; send it as Authorization: Bearer <API_KEY>');
    }
    const caller = await accounts.findCaller(secret);
    if (!caller) throw new AppError('unauthorized', 'invalid or revoked API key; check that the API key is correct');
    res.locals.caller = caller;
    next();
  };
}
