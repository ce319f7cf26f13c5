import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { AppError } from '@relay/core';
import { bearerKey } from '../auth/authenticate.js';
import type { AuthFailures } from '../auth/failures.js';

/** Compares digests so the comparison takes the same time whatever the guess. */
function sameSecret(a: string, b: string) {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(a), digest(b));
}

/** Basic auth's password (any user name). */
function basicPassword(req: Request): string | undefined {
  const encoded = /^Basic\s+(\S+)$/i.exec(req.get('authorization') ?? '')?.[1];
  if (!encoded) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  return decoded.includes(':') ? decoded.slice(decoded.indexOf(':') + 1) : undefined;
}

/** Methods that change nothing: the only ones a browser's remembered Basic password may open. */
const LOOKS = new Set(['GET', 'HEAD']);

const HEADERS = 'Authorization: Bearer <ADMIN_TOKEN> or X-Admin-Token: <ADMIN_TOKEN>';

export interface AdminAuthOptions {
  /**
   * The dashboard's pages and reads take the token as a Basic password too, so a browser can open
   * them (it asks for it). A browser sends a remembered Basic password by itself, whoever made the
   * request, so it opens nothing that changes state: the dashboard's actions, like every other
   * admin route, take the token only in a header a page of another site cannot set.
   */
  basicToLook?: boolean;
}

/**
 * The admin token, in a header only a caller that means it can send (a cross-site form or image
 * cannot). A wrong token is a 401 counted against the client's address; an address with too many
 * in its window gets 429 until the window ends, whatever it sends (failures.ts).
 */
export function requireAdmin(adminToken: string, failures: AuthFailures, options: AdminAuthOptions = {}) {
  return async (req: Request, res: Response, next: NextFunction) => {
    // the admin area is mounted twice over /admin: a request checked by the first is not checked again,
    // nor counted twice
    if (res.locals.admin) return next();
    const bearer = bearerKey(req);
    const mayLook = options.basicToLook === true && LOOKS.has(req.method);
    const basic = basicPassword(req);
    const fromHeader = bearer ?? req.get('x-admin-token');
    const given = fromHeader ?? (mayLook ? basic : undefined);
    // a Basic challenge makes a browser ask for the password: right for the dashboard's pages, not
    // for a caller (the console's fetch) that sent a Bearer token, which is challenged as such
    const challenge = () =>
      res.set('WWW-Authenticate', mayLook && !bearer ? 'Basic realm="relay admin", charset="UTF-8"' : 'Bearer realm="relay admin"');
    if (!given) {
      challenge();
      if (basic !== undefined) {
        throw new AppError(
          'unauthorized',
          options.basicToLook
            ? `the dashboard takes the admin token as a Basic password only to look (GET); its actions take it as ${HEADERS}`
            : `the admin API takes the token as ${HEADERS}, never as a Basic password`,
        );
      }
      throw new AppError('unauthorized', `admin token required (${HEADERS})`);
    }
    await failures.admit('admin', req);
    if (!sameSecret(given, adminToken)) {
      await failures.failed('admin', req, res.locals.requestId);
      challenge();
      throw new AppError('unauthorized', `wrong admin token: send the ADMIN_TOKEN the relay runs with (${HEADERS})`);
    }
    // only a token from a header opens the rest of /admin: a Basic password opens the dashboard's pages alone
    if (fromHeader !== undefined) res.locals.admin = true;
    next();
  };
}

/**
 * Headers of every admin answer, the dashboard's pages among them: no site may frame them (their
 * Clean, Empty and Obliterate buttons under a decoy), and no browser guesses a type.
 */
export function adminHeaders(_req: Request, res: Response, next: NextFunction) {
  res.set({ 'Content-Security-Policy': "frame-ancestors 'none'", 'X-Frame-Options': 'DENY', 'X-Content-Type-Options': 'nosniff' });
  next();
}

const CHANGES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * A request that changes state sends JSON or nothing: any other body or Content-Type is a 415. A
 * form of another site can send only text/plain, urlencoded or multipart bodies without a
 * preflight, so none of them reaches an admin route, the dashboard's own among them.
 */
export function jsonBodiesOnly(req: Request, _res: Response, next: NextFunction) {
  if (!CHANGES.has(req.method)) return next();
  const given = req.get('content-type');
  const mediaType = given?.split(';')[0]!.trim().toLowerCase();
  const hasBody = req.get('transfer-encoding') !== undefined || Number(req.get('content-length') ?? 0) > 0;
  if (mediaType === 'application/json' || (given === undefined && !hasBody)) return next();
  throw new AppError(
    'unsupported_media_type',
    given === undefined
      ? `${req.method} ${req.originalUrl.split('?')[0]} sent a body without a Content-Type: the admin API takes application/json bodies only`
      : `Content-Type must be application/json, not ${given}: the admin API takes JSON bodies only (or none)`,
  );
}
