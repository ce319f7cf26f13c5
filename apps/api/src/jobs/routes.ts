import express, { type RequestHandler } from 'express';
import { AppError, ownValue } from '@relay/core';
import { isJobId, type JobMeta } from '@relay/jobs';
import { authenticate, type KeySource } from '../auth/authenticate.js';
import type { AccountsStore } from '../auth/accounts.js';
import type { Dialect } from '../http/dialects.js';
import { answer, type Presenter } from './answer.js';
import type { AnswerCache } from './answer-cache.js';
import type { QueueHandle } from './queues.js';
import { settledOutcome } from './run-job.js';

/** How to find and answer the jobs whose ids start with a given kind prefix. */
export interface JobKindRoute {
  handle: QueueHandle;
  dialect: Dialect;
  present: (req: express.Request) => Presenter<unknown>;
}

export interface JobsRouteDeps {
  accounts: AccountsStore;
  keys: { sources: KeySource[]; hint: string };
  /** Reads have a rate-limit bucket of their own, larger than the generation limit. */
  readLimit: RequestHandler;
  cache: AnswerCache;
  kinds: Record<string, JobKindRoute>;
}

/**
 * GET /v1/jobs/{id}: the job's status, and once done exactly the body the synchronous call
 * would have returned. Jobs of other accounts are indistinguishable from missing ones.
 */
export function jobsRoutes({ accounts, keys, readLimit, cache, kinds }: JobsRouteDeps) {
  const router = express.Router();
  router.get('/v1/jobs/:id', authenticate(accounts, keys), readLimit, async (req, res) => {
    const id = String(req.params.id);
    const accountId = res.locals.caller!.accountId;
    const kind = isJobId(id) ? ownValue(kinds, id.split('_')[0] ?? '') : undefined;
    const outcome = kind && (await settledOutcome(kind.handle, id));
    if (!kind || !outcome || outcome.state === 'gone' || (outcome.job.data as { meta: JobMeta }).meta.accountId !== accountId) {
      throw new AppError('not_found', `no job ${id}`);
    }
    res.locals.dialect = kind.dialect;
    const present = cache.presenter(`${id} ${req.protocol}://${req.get('host')}`, accountId, kind.present(req));
    await answer(res, kind.handle, outcome, present, kind.dialect);
  });
  return router;
}
