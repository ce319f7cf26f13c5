import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { AppError } from '@relay/core';
import { bearerKey } from '../auth/authenticate.js';

/** Compares digests so the comparison takes the same time whatever the guess. */
function sameSecret(a: string, b: string) {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(a), digest(b));
}

/** Basic auth's password, so a browser can open the dashboard (any user name). */
function basicPassword(req: Request): string | undefined {
  const encoded = /^Basic\s+(\S+)$/i.exec(req.get('authorization') ?? '')?.[1];
  if (!encoded) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  return decoded.includes(':') ? decoded.slice(decoded.indexOf(':') + 1) : undefined;
}

/** The admin token as Bearer, X-Admin-Token or a Basic password; browsers are asked for it. */
export function requireAdmin(adminToken: string) {
  return (req: Request, res: Response, next: NextFunction) => {
    const bearer = bearerKey(req);
    const given = bearer ?? req.get('x-admin-token') ?? basicPassword(req);
    if (!given || !sameSecret(given, adminToken)) {
      // a Basic challenge makes a browser ask for the password: right for the dashboard, not
      // for a caller (the console's fetch) that sent a Bearer token, which is challenged as such
      res.set('WWW-Authenticate', bearer ? 'Bearer realm="relay admin"' : 'Basic realm="relay admin", charset="UTF-8"');
      throw new AppError('unauthorized', 'admin token required (Authorization: Bearer <ADMIN_TOKEN>)');
    }
    next();
  };
}
