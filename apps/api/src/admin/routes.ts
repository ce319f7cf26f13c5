import express, { type Request, type Response } from 'express';
import type { Redis } from 'ioredis';
import { AppError, parseOrThrow } from '@relay/core';
import { readLedger, type Billing } from '@relay/billing';
import type { AccountsStore } from '../auth/accounts.js';
import { jsonBody } from '../http/json-body.js';
import { accountBody, creditBody, keyBody, usageQuery } from './schemas.js';

export interface AdminDeps {
  accounts: AccountsStore;
  billing: Billing;
  redis: Redis;
  prefix: string;
  bodyLimit: number;
}

/** The admin API; the app mounts it under /admin behind the admin token. */
export function adminRoutes({ accounts, billing, redis, prefix, bodyLimit }: AdminDeps) {
  const router = express.Router();

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
    const { key, ...rest } = query;
    res.json(await readLedger(redis, prefix, account.id, { ...rest, ...(key ? { keyId: key } : {}) }));
  });

  router.delete('/keys/:id', async (req, res) => {
    const record = await accounts.revokeKey(String(req.params.id));
    if (!record) throw new AppError('not_found', `no key ${String(req.params.id)}`);
    res.json(record);
  });

  return router;
}
