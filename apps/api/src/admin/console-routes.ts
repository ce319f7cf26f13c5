import { readFile } from 'node:fs/promises';
import express from 'express';
import type { Redis } from 'ioredis';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import type { Catalog } from '@relay/core';
import { ALL_ACCOUNTS, dailyUsageSchema, readDailyUsage, readMonthSpend, type Billing } from '@relay/billing';
import { AppError, CAPABILITIES, decodeFailure, parseOrThrow, QUEUE_NAMES } from '@relay/core';
import { errorResponses } from '@relay/jobs';
import { listAccountIds, searchAccountIds, searchWords } from '../auth/account-index.js';
import type { AccountsStore } from '../auth/accounts.js';
import type { Queues } from '../jobs/queues.js';
import { ADMIN_SECURITY, jsonAnswer } from '../openapi/parts.js';
import { readTraffic, trafficQuery, trafficSchema } from '../stats/read-traffic.js';
import { DASHBOARD_PATH } from './dashboard.js';
import {
  accountListQuery,
  accountListSchema,
  adminCatalogSchema,
  dailyQuery,
  demoKeySchema,
  jobStates,
  queueStatsSchema,
  type AccountSummary,
  type AdminCatalog,
  type DemoKey,
  type QueueStats,
} from './console-schemas.js';
import { accountPath } from './schemas.js';

export interface ConsoleAdminDeps {
  accounts: AccountsStore;
  billing: Billing;
  redis: Redis;
  prefix: string;
  queues: Queues;
  catalog: Catalog;
  /** npm start's demo-key.json (the config file's `console.demoKeyFile`); unset on any other relay. */
  demoKeyFile?: string | undefined;
}

const RECENT_FAILURES = 10;

/** An encoded AppError as its message; anything else (a crash's own text) as it is. */
const readableReason = (reason: string | undefined) => {
  const decoded = decodeFailure(reason);
  return decoded.code === 'internal' ? (reason ?? '') : decoded.message;
};

/** The read-only admin routes behind the console's lists and charts (mounted under /admin). */
export function consoleAdminRoutes({ accounts, billing, redis, prefix, queues, catalog, demoKeyFile }: ConsoleAdminDeps) {
  const router = express.Router();

  router.get('/accounts', async (req, res) => {
    const query = parseOrThrow(accountListQuery, req.query);
    const offset = Number(query.cursor ?? 0);
    const page = query.q
      ? await searchAccountIds(redis, prefix, query.q, offset, query.limit)
      : { ...(await listAccountIds(redis, prefix, offset, query.limit)), words: [] };
    const found = await accounts.getAccounts(page.ids);
    // every word of the query must start a word of the name (or the id)
    const matching = found.filter((a) => page.words.every((w) => a.id.startsWith(w) || searchWords(a.name).some((n) => n.startsWith(w))));
    const [balances, monthSpend] = await Promise.all([
      Promise.all(matching.map((a) => billing.balanceOf(a.id))),
      readMonthSpend(
        redis,
        prefix,
        matching.map((a) => a.id),
      ),
    ]);
    const rows: AccountSummary[] = matching.map((a, i) => ({
      ...a,
      ...(balances[i] ?? { balance: 0, reserved: 0, spent: 0 }),
      spentThisMonth: monthSpend[i] ?? 0,
    }));
    res.json({ accounts: rows, nextCursor: page.next === null ? null : String(page.next) });
  });

  router.get('/accounts/:id/usage/daily', async (req, res) => {
    const { days } = parseOrThrow(dailyQuery, req.query);
    const { id } = parseOrThrow(accountPath, req.params);
    const account = await accounts.getAccount(id);
    if (!account) throw new AppError('not_found', `no account ${id}`);
    res.json(await readDailyUsage(redis, prefix, account.id, days));
  });

  router.get('/usage/daily', async (req, res) => {
    const { days } = parseOrThrow(dailyQuery, req.query);
    res.json(await readDailyUsage(redis, prefix, ALL_ACCOUNTS, days));
  });

  router.get('/stats/traffic', async (req, res) => {
    const { hours } = parseOrThrow(trafficQuery, req.query);
    res.json(await readTraffic(redis, prefix, hours));
  });

  router.get('/stats/queues', async (_req, res) => {
    const answer: QueueStats = {
      dashboard: DASHBOARD_PATH,
      queues: await Promise.all(
        Object.entries(queues).map(async ([name, { queue }]) => {
          const [counts, failed] = await Promise.all([
            queue.getJobCounts('wait', ...jobStates.slice(1)),
            queue.getFailed(0, RECENT_FAILURES - 1),
          ]);
          return {
            name,
            queue: queue.name,
            counts: Object.fromEntries(
              jobStates.map((s) => [s, counts[s === 'waiting' ? 'wait' : s] ?? 0]),
            ) as QueueStats['queues'][number]['counts'],
            recentFailures: failed.filter(Boolean).map((job) => ({
              id: String(job.id),
              failedReason: readableReason(job.failedReason),
              finishedOn: job.finishedOn ?? null,
              attemptsMade: job.attemptsMade,
            })),
          };
        }),
      ),
    };
    res.json(answer);
  });

  router.get('/catalog', (_req, res) => {
    const answer: AdminCatalog = {
      models: QUEUE_NAMES.flatMap((capability) => Object.keys(catalog[CAPABILITIES[capability].models]).map((id) => ({ id, capability }))),
      imageModels: Object.entries(catalog.imageModels).map(([id, m]) => ({
        id,
        price: m.price,
        inputImages: m.inputImages,
        sequential: m.sequential,
      })),
      speechModels: Object.entries(catalog.speechModels).map(([id, m]) => ({ id, voices: m.voices, price: m.price })),
    };
    res.json(answer);
  });

  // behind the admin token like every route here: the operator could make a key anyway, an anonymous caller never sees it
  router.get('/demo-key', async (_req, res) => {
    const answer: DemoKey = { key: demoKeyFile ? await readDemoKey(demoKeyFile) : null };
    res.set('Cache-Control', 'no-store').json(answer);
  });

  return router;
}

/** The key in npm start's demo-key.json, read when asked: the launcher writes it after the api is up, and again when it remakes it. */
async function readDemoKey(file: string): Promise<string | null> {
  try {
    const { key } = JSON.parse(await readFile(file, 'utf8')) as { key?: unknown };
    return typeof key === 'string' ? key : null;
  } catch {
    return null; // not written yet, or not the launcher's file
  }
}

const admin = { tags: ['admin'], security: ADMIN_SECURITY };

/** The routes above, as OpenAPI (POST /admin/accounts, creating one, is the admin routes'). */
export const consoleAdminPaths: ZodOpenApiPathsObject = {
  '/admin/accounts': {
    get: {
      ...admin,
      summary: 'Accounts, newest first, or those matching a search',
      description: 'Read from an index kept when accounts are created: no scan of Redis.',
      requestParams: { query: accountListQuery },
      responses: {
        '200': jsonAnswer("A page of accounts with balances and this month's spend", accountListSchema),
        ...errorResponses('openai', [400, 401]),
      },
    },
  },
  '/admin/accounts/{id}/usage/daily': {
    get: {
      ...admin,
      summary: "The account's spend, units and jobs per day and model",
      requestParams: { path: accountPath, query: dailyQuery },
      responses: { '200': jsonAnswer('Daily aggregates', dailyUsageSchema), ...errorResponses('openai', [400, 401, 404]) },
    },
  },
  '/admin/usage/daily': {
    get: {
      ...admin,
      summary: "The relay's spend, units and jobs per day and model",
      requestParams: { query: dailyQuery },
      responses: { '200': jsonAnswer('Daily aggregates', dailyUsageSchema), ...errorResponses('openai', [400, 401]) },
    },
  },
  '/admin/stats/traffic': {
    get: {
      ...admin,
      summary: 'Requests, errors and latency per minute (every api process, from Redis)',
      requestParams: { query: trafficQuery },
      responses: { '200': jsonAnswer('Per-minute traffic', trafficSchema), ...errorResponses('openai', [400, 401]) },
    },
  },
  '/admin/stats/queues': {
    get: {
      ...admin,
      summary: 'Jobs per queue and state, and the latest failures',
      responses: { '200': jsonAnswer('Queue counts', queueStatsSchema), ...errorResponses('openai', [401]) },
    },
  },
  '/admin/catalog': {
    get: {
      ...admin,
      summary: 'The models, prices and voices the relay serves',
      responses: { '200': jsonAnswer('The catalog', adminCatalogSchema), ...errorResponses('openai', [401]) },
    },
  },
  '/admin/demo-key': {
    get: {
      ...admin,
      summary: "The demo account's key npm start made, for the console playground (null on any other relay)",
      responses: { '200': jsonAnswer('The demo key, or null', demoKeySchema), ...errorResponses('openai', [401]) },
    },
  },
};
