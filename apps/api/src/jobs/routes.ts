import express, { type Request, type RequestHandler } from 'express';
import { AppError, type BlobStore } from '@relay/core';
import { capabilityOfJobId, isJobId, type Doors, type JobMeta, type Payload } from '@relay/jobs';
import { authenticate, type KeySource } from '../auth/authenticate.js';
import type { AccountsStore } from '../auth/accounts.js';
import { answer } from './answer.js';
import type { AnswerCache } from './answer-cache.js';
import type { Queues } from './queues.js';
import { settledOutcome } from './run-job.js';

export interface JobsRouteDeps {
  accounts: AccountsStore;
  keys: { sources: KeySource[]; hint: string };
  /** Reads have a rate-limit bucket of their own, larger than the generation limit. */
  readLimit: RequestHandler;
  cache: AnswerCache;
  queues: Queues;
  doors: Doors;
  store: BlobStore;
  publicBase: (req: Request) => string;
}

/**
 * GET /v1/jobs/{id}: the job's status, and once done exactly the body the synchronous call
 * would have returned, in the dialect of the door the job came in by. Jobs of other accounts
 * are indistinguishable from missing ones.
 */
export function jobsRoutes({ accounts, keys, readLimit, cache, queues, doors, store, publicBase }: JobsRouteDeps) {
  const router = express.Router();
  router.get('/v1/jobs/:id', authenticate(accounts, keys), readLimit, async (req, res) => {
    const id = String(req.params.id);
    const accountId = res.locals.caller!.accountId;
    const capability = isJobId(id) ? capabilityOfJobId(id) : undefined;
    const handle = capability && queues[capability.id];
    const outcome = handle && (await settledOutcome(handle, id));
    if (!capability || !outcome || outcome.state === 'gone' || (outcome.job.data as { meta: JobMeta }).meta.accountId !== accountId) {
      throw new AppError('not_found', `no job ${id}`);
    }
    const door = doors.ofJob(capability.id, (outcome.job.data as { meta: JobMeta }).meta);
    res.locals.dialect = door.dialect;
    const base = publicBase(req);
    const present = cache.presenter(`${id} ${base}`, accountId, (job, result) =>
      door.present(job.data as Payload<typeof capability.id>, result, { publicBase: base, store }),
    );
    await answer(res, handle, outcome, present, door.dialect, store);
  });
  return router;
}
