import express, { type Request, type Response } from 'express';
import { AppError, parseOrThrow } from '@relay/core';
import type { AccountsStore } from '../auth/accounts.js';
import { jsonBody } from '../http/json-body.js';
import type { Queues } from '../jobs/queues.js';
import { readScheduleStats } from './schedule-stats.js';
import { accountScheduleBody } from './schemas.js';

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
    const id = String(req.params.id);
    if (!(await accounts.getAccount(id))) throw new AppError('not_found', `no account ${id}`);
    await accounts.updateSchedule(id, change);
    res.json(await accounts.getAccount(id));
  });

  return router;
}
