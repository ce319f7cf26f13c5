import { timingSafeEqual, createHash } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import { AppError } from '@relay/core';
import type { AccountsStore } from '../auth/accounts.js';
import { bearerKey } from '../auth/authenticate.js';
import { jsonBody } from '../http/json-body.js';
import { parseOrThrow } from '../http/validate.js';

const nameBody = z.strictObject({ name: z.string().trim().min(1, 'name must not be empty').max(200) });

/** Compares digests so the comparison takes the same time whatever the guess. */
function sameSecret(a: string, b: string) {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(a), digest(b));
}

export function adminRoutes(accounts: AccountsStore, adminToken: string, bodyLimit: number) {
  const router = express.Router();
  router.use((req: Request, _res: Response, next: NextFunction) => {
    const given = bearerKey(req) ?? req.get('x-admin-token');
    if (!given || !sameSecret(given, adminToken)) throw new AppError('unauthorized', 'admin token required');
    next();
  });

  router.post('/accounts', jsonBody(bodyLimit), async (req: Request, res: Response) => {
    const { name } = parseOrThrow(nameBody, req.body);
    res.status(201).json(await accounts.createAccount(name));
  });

  router.get('/accounts/:id', async (req, res) => {
    const account = await accounts.getAccount(String(req.params.id));
    if (!account) throw new AppError('not_found', `no account ${String(req.params.id)}`);
    res.json({ ...account, keys: await accounts.listKeys(account.id) });
  });

  router.post('/accounts/:id/keys', jsonBody(bodyLimit), async (req: Request, res: Response) => {
    const { name } = parseOrThrow(nameBody, req.body);
    const account = await accounts.getAccount(String(req.params.id));
    if (!account) throw new AppError('not_found', `no account ${String(req.params.id)}`);
    const { record, secret } = await accounts.createKey(account.id, name);
    res.status(201).json({ ...record, key: secret });
  });

  router.delete('/keys/:id', async (req, res) => {
    const record = await accounts.revokeKey(String(req.params.id));
    if (!record) throw new AppError('not_found', `no key ${String(req.params.id)}`);
    res.json(record);
  });

  return router;
}
