import express from 'express';
import { AppError, ownValue } from '@relay/core';
import { isJobId, type JobMeta } from '@relay/jobs';
import { authenticate, type KeySource } from '../auth/authenticate.js';
import type { AccountsStore } from '../auth/accounts.js';
import type { Dialect } from '../http/dialects.js';
import { answer, type Presenter } from './answer.js';
import type { QueueHandle } from './queues.js';
import { settledOutcome } from './run-job.js';

/** How to find and answer the jobs whose ids start with a given kind prefix. */
export interface JobKindRoute {
  handle: QueueHandle;
  dialect: Dialect;
  present: (req: express.Request) => Presenter<unknown>;
}

/**
 * GET /v1/jobs/{id}: the job's status, and once done exactly the body the synchronous call
 * would have returned. Jobs of other accounts are indistinguishable from missing ones.
 */
export function jobsRoutes(accounts: AccountsStore, keys: { sources: KeySource[]; hint: string }, kinds: Record<string, JobKindRoute>) {
  const router = express.Router();
  router.get('/v1/jobs/:id', authenticate(accounts, keys), async (req, res) => {
    const id = String(req.params.id);
    const kind = isJobId(id) ? ownValue(kinds, id.split('_')[0] ?? '') : undefined;
    const job = kind && (await kind.handle.queue.getJob(id));
    if (!kind || !job || (job.data as { meta: JobMeta }).meta.accountId !== res.locals.caller!.accountId) {
      throw new AppError('not_found', `no job ${id}`);
    }
    await answer(res, await settledOutcome(kind.handle, id), kind.present(req), kind.dialect);
  });
  return router;
}
