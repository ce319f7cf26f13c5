import express, { type Request, type Response } from 'express';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { AppError, parseOrThrow } from '@relay/core';
import { errorResponses } from '@relay/jobs';
import type { AccountsStore } from '../auth/accounts.js';
import { accountSchema } from '../auth/records.js';
import { jsonBody } from '../http/json-body.js';
import type { Queues } from '../jobs/queues.js';
import { ADMIN_SECURITY, jsonAnswer, jsonRequest } from '../openapi/parts.js';
import { readScheduleStats, scheduleStatsSchema } from './schedule-stats.js';
import { accountPath, accountScheduleBody } from './schemas.js';

/**
 * The fair schedule as an operator sees and steers it: pending work per queue, lane and account
 * (the dashboard shows it too, as BullMQ "delayed" jobs), who holds the capacity, and each
 * account's weight and cap.
 */
export function scheduleRoutes(accounts: AccountsStore, queues: Queues, bodyLimit: number) {
  const router = express.Router();

  router.get('/schedule', async (_req, res) => {
    res.json(await readScheduleStats(queues));
  });

  router.patch('/accounts/:id', jsonBody(bodyLimit), async (req: Request, res: Response) => {
    const change = parseOrThrow(accountScheduleBody, req.body);
    const { id } = parseOrThrow(accountPath, req.params);
    if (!(await accounts.getAccount(id))) throw new AppError('not_found', `no account ${id}`);
    await accounts.updateSchedule(id, change);
    res.json(await accounts.getAccount(id));
  });

  return router;
}

export const schedulePaths: ZodOpenApiPathsObject = {
  '/admin/schedule': {
    get: {
      tags: ['admin'],
      summary: 'Pending work per queue, lane and account; dispatched work per account',
      security: ADMIN_SECURITY,
      responses: { '200': jsonAnswer('The schedule', scheduleStatsSchema), ...errorResponses('openai', [401]) },
    },
  },
  '/admin/accounts/{id}': {
    patch: {
      tags: ['admin'],
      summary: "The account's place in the fair schedule: weight, cap on jobs in flight",
      security: ADMIN_SECURITY,
      requestParams: { path: accountPath },
      requestBody: jsonRequest(accountScheduleBody),
      responses: { '200': jsonAnswer('The account', accountSchema), ...errorResponses('openai', [400, 401, 404, 413, 415]) },
    },
  },
};
