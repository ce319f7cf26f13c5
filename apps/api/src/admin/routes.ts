import { createHash, timingSafeEqual } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { AppError } from '@relay/core';
import { readLedger, type Billing } from '@relay/billing';
import type { AccountsStore } from '../auth/accounts.js';
import { bearerKey } from '../auth/authenticate.js';
import { jsonBody } from '../http/json-body.js';
import { parseOrThrow } from '../http/validate.js';

const name = z.string().trim().min(1, 'name must not be empty').max(200);
const accountBody = z.strictObject({ name });
const keyBody = z.strictObject({
  name,
  rateLimitPerMinute: z.number().int().min(0, 'rateLimitPerMinute must be >= 0 (0 = unlimited)').optional(),
});
const creditBody = z.strictObject({
  amount: z.number().int('amount is in integer micro-units').refine((n) => n !== 0, 'amount must not be 0'),
  note: z.string().max(500).optional(),
});
const time = z.union([z.coerce.number().int(), z.iso.datetime().transform((s) => Date.parse(s))]);
const usageQuery = z.strictObject({
  from: time.optional(),
  to: time.optional(),
  model: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(1_000).default(100),
  cursor: z.string().regex(/^\d+-\d+$/, 'cursor must be a nextCursor value').optional(),
});

/** Compares digests so the comparison takes the same time whatever the guess. */
function sameSecret(a: string, b: string) {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(a), digest(b));
}

export interface AdminDeps {
  accounts: AccountsStore;
  billing: Billing;
  redis: Redis;
  prefix: string;
  adminToken: string;
  bodyLimit: number;
}

export function adminRoutes({ accounts, billing, redis, prefix, adminToken, bodyLimit }: AdminDeps) {
  const router = express.Router();
  router.use((req: Request, _res: Response, next: NextFunction) => {
    const given = bearerKey(req) ?? req.get('x-admin-token');
    if (!given || !sameSecret(given, adminToken)) throw new AppError('unauthorized', 'admin token required');
    next();
  });

  const accountOr404 = async (id: string) => {
    const account = await accounts.getAccount(id);
    if (!account) throw new AppError('not_found', `no account ${id}`);
    return account;
  };

  router.post('/accounts', jsonBody(bodyLimit), async (req: Request, res: Response) => {
    const body = parseOrThrow(accountBody, req.body);
    res.status(201).json(await accounts.createAccount(body.name));
  });

  router.get('/accounts/:id', async (req, res) => {
    const account = await accountOr404(String(req.params.id));
    const [balance, keys] = await Promise.all([billing.balanceOf(account.id), accounts.listKeys(account.id)]);
    res.json({ ...account, ...balance, keys });
  });

  router.get('/accounts/:id/keys', async (req, res) => {
    const account = await accountOr404(String(req.params.id));
    res.json({ keys: await accounts.listKeys(account.id) });
  });

  router.post('/accounts/:id/keys', jsonBody(bodyLimit), async (req: Request, res: Response) => {
    const body = parseOrThrow(keyBody, req.body);
    const account = await accountOr404(String(req.params.id));
    const { record, secret } = await accounts.createKey(account.id, body.name, body.rateLimitPerMinute);
    res.status(201).json({ ...record, key: secret });
  });

  router.post('/accounts/:id/credits', jsonBody(bodyLimit), async (req: Request, res: Response) => {
    const body = parseOrThrow(creditBody, req.body);
    const account = await accountOr404(String(req.params.id));
    await billing.credit(account.id, body.amount, body.note);
    res.json({ id: account.id, ...(await billing.balanceOf(account.id)) });
  });

  router.get('/accounts/:id/usage', async (req, res) => {
    const query = parseOrThrow(usageQuery, req.query);
    const account = await accountOr404(String(req.params.id));
    res.json(await readLedger(redis, prefix, account.id, query));
  });

  router.delete('/keys/:id', async (req, res) => {
    const record = await accounts.revokeKey(String(req.params.id));
    if (!record) throw new AppError('not_found', `no key ${String(req.params.id)}`);
    res.json(record);
  });

  return router;
}
