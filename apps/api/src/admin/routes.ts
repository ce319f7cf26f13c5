import express, { type Request, type Response } from 'express';
import type { Redis } from 'ioredis';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { AppError, parseOrThrow } from '@relay/core';
import { ledgerPageSchema, readLedger, type Billing } from '@relay/billing';
import { errorResponses } from '@relay/jobs';
import type { AccountsStore } from '../auth/accounts.js';
import { accountSchema, keyRecordSchema } from '../auth/records.js';
import { jsonBody } from '../http/json-body.js';
import { ADMIN_SECURITY, jsonAnswer, jsonRequest } from '../openapi/parts.js';
import {
  accountBody,
  accountDetailsSchema,
  accountPath,
  balanceAnswerSchema,
  creditBody,
  keyBody,
  keyListSchema,
  keyPath,
  newKeySchema,
  usageQuery,
} from './schemas.js';

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

  const accountOr404 = async (params: unknown) => {
    const { id } = parseOrThrow(accountPath, params);
    const account = await accounts.getAccount(id);
    if (!account) throw new AppError('not_found', `no account ${id}`);
    return account;
  };

  router.post('/accounts', jsonBody(bodyLimit), async (req: Request, res: Response) => {
    const body = parseOrThrow(accountBody, req.body);
    const made = await accounts.createAccount(body.name);
    if ('taken' in made) {
      // the account that holds the name, where a client finds it (as a 201 would point at a new one)
      res.location(`${req.baseUrl}/accounts/${made.taken.id}`);
      throw new AppError(
        'conflict',
        `an account named "${made.taken.name}" already exists: ${made.taken.id}; names are compared ignoring case and surrounding spaces, so choose another name or use that account`,
        { param: 'name' },
      );
    }
    res.status(201).location(`${req.baseUrl}/accounts/${made.created.id}`).json(made.created);
  });

  router.get('/accounts/:id', async (req, res) => {
    const account = await accountOr404(req.params);
    const [balance, keys] = await Promise.all([billing.balanceOf(account.id), accounts.listKeys(account.id)]);
    res.json({ ...account, ...balance, keys });
  });

  router.get('/accounts/:id/keys', async (req, res) => {
    const account = await accountOr404(req.params);
    res.json({ keys: await accounts.listKeys(account.id) });
  });

  router.post('/accounts/:id/keys', jsonBody(bodyLimit), async (req: Request, res: Response) => {
    const body = parseOrThrow(keyBody, req.body);
    const account = await accountOr404(req.params);
    const { record, secret } = await accounts.createKey(account.id, body.name, body.rateLimitPerMinute);
    res.status(201).json({ ...record, key: secret });
  });

  router.post('/accounts/:id/credits', jsonBody(bodyLimit), async (req: Request, res: Response) => {
    const body = parseOrThrow(creditBody, req.body);
    const account = await accountOr404(req.params);
    await billing.credit(account.id, body.amount, body.note);
    res.json({ id: account.id, ...(await billing.balanceOf(account.id)) });
  });

  router.get('/accounts/:id/usage', async (req, res) => {
    const query = parseOrThrow(usageQuery, req.query);
    const account = await accountOr404(req.params);
    const { key, ...rest } = query;
    res.json(await readLedger(redis, prefix, account.id, { ...rest, ...(key ? { keyId: key } : {}) }));
  });

  router.delete('/keys/:id', async (req, res) => {
    const { id } = parseOrThrow(keyPath, req.params);
    const record = await accounts.revokeKey(id);
    if (!record) throw new AppError('not_found', `no key ${id}`);
    res.json(record);
  });

  return router;
}

const admin = { tags: ['admin'], security: ADMIN_SECURITY };
const ofAccount = { ...admin, requestParams: { path: accountPath } };

/** The routes above, as OpenAPI (GET /admin/accounts is the console's, PATCH /admin/accounts/{id} the schedule's). */
export const adminPaths: ZodOpenApiPathsObject = {
  '/admin/accounts': {
    post: {
      ...admin,
      summary: 'Create an account',
      requestBody: jsonRequest(accountBody),
      description:
        'Account names are unique, compared trimmed and ignoring case ("Acme" and " acme " are the same name): a name another ' +
        "account holds is a 409 `conflict` whose message names that account's id and whose `Location` header points at it. " +
        'Of two creates with the same name at once, exactly one makes an account.',
      responses: {
        '201': jsonAnswer('The account', accountSchema),
        ...errorResponses('openai', [400, 401, 413, 415]),
        '409': {
          ...errorResponses('openai', [409])['409'],
          description: 'Another account holds the name; Location is /admin/accounts/{its id}',
          headers: { Location: { description: 'The account that holds the name', schema: { type: 'string' } } },
        },
      },
    },
  },
  '/admin/accounts/{id}': {
    get: {
      ...ofAccount,
      summary: 'Account, balance and keys',
      responses: { '200': jsonAnswer('The account', accountDetailsSchema), ...errorResponses('openai', [401, 404]) },
    },
  },
  '/admin/accounts/{id}/keys': {
    get: {
      ...ofAccount,
      summary: "The account's keys",
      responses: { '200': jsonAnswer('Keys, never their secrets', keyListSchema), ...errorResponses('openai', [401, 404]) },
    },
    post: {
      ...ofAccount,
      summary: 'Create a key (its secret is shown once)',
      requestBody: jsonRequest(keyBody),
      responses: { '201': jsonAnswer('The key with its secret', newKeySchema), ...errorResponses('openai', [400, 401, 404, 413, 415]) },
    },
  },
  '/admin/accounts/{id}/credits': {
    post: {
      ...ofAccount,
      summary: 'Credit (or correct) the balance',
      description:
        'Every amount of the admin API is an integer of micro-units: 1,000,000 micro-units are one unit of the account currency. ' +
        'The admin CLI (`npm run admin -- credits add <account> 50`) and the console take units and send micro-units.',
      requestBody: jsonRequest(creditBody),
      responses: { '200': jsonAnswer('The new balance', balanceAnswerSchema), ...errorResponses('openai', [400, 401, 404, 413, 415]) },
    },
  },
  '/admin/accounts/{id}/usage': {
    get: {
      ...admin,
      summary: 'The ledger, newest first',
      requestParams: { path: accountPath, query: usageQuery },
      responses: { '200': jsonAnswer('A page of entries', ledgerPageSchema), ...errorResponses('openai', [400, 401, 404]) },
    },
  },
  '/admin/keys/{id}': {
    delete: {
      ...admin,
      summary: 'Revoke a key',
      requestParams: { path: keyPath },
      responses: { '200': jsonAnswer('The revoked key', keyRecordSchema), ...errorResponses('openai', [401, 404]) },
    },
  },
};
