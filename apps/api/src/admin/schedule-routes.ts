import express, { type Request, type Response } from 'express';
import { z } from 'zod';
import { AppError } from '@relay/core';
import { LANES, type QueueName } from '@relay/jobs';
import type { Scheduler, Tally } from '@relay/scheduler';
import type { AccountsStore } from '../auth/accounts.js';
import { jsonBody } from '../http/json-body.js';
import { parseOrThrow } from '../http/validate.js';
import { accountScheduleBody } from './schemas.js';

const share = z.object({ accountId: z.string(), jobs: z.number().int(), cost: z.number() });
const queueSchedule = z.object({
  pending: z.record(z.enum(LANES), z.array(share)).describe('Jobs waiting for their turn, per lane, largest first'),
  running: z.array(share).describe("Jobs handed to the workers and not finished: each account's share of the capacity"),
  dispatching: z.number().int().describe('Picked and being handed over (about 0)'),
});
/** GET /admin/schedule: what waits where, and who holds the capacity. */
export const scheduleSchema = z.record(z.string(), queueSchedule);

const rows = (tally: Tally) =>
  [...tally.entries()].map(([accountId, t]) => ({ accountId, jobs: t.count, cost: t.cost })).sort((a, b) => b.cost - a.cost);

/**
 * The fair schedule as an operator sees and steers it: pending work per lane and account (the
 * dashboard shows it too, as BullMQ "delayed" jobs), and each account's weight and cap.
 */
export function scheduleRoutes(accounts: AccountsStore, schedulers: Record<QueueName, Scheduler>, bodyLimit: number) {
  const router = express.Router();

  router.get('/schedule', async (_req, res) => {
    const entries = await Promise.all(
      Object.entries(schedulers).map(async ([name, scheduler]) => {
        const stats = await scheduler.stats();
        const pending = Object.fromEntries(LANES.map((lane) => [lane, rows(stats.pending[lane])]));
        return [name, { pending, running: rows(stats.running), dispatching: stats.dispatching }] as const;
      }),
    );
    res.json(Object.fromEntries(entries));
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
