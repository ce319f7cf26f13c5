import express, { type Request, type RequestHandler, type Response } from 'express';
import { AppError, parseOrThrow } from '@relay/core';
import {
  batchCreateBody,
  batchListQuery,
  batchResultsQuery,
  createBatch,
  ENDED,
  readResults,
  type BatchRecords,
  type CreateDeps,
} from '@relay/batch';
import type { AccountsStore } from '../auth/accounts.js';
import { authenticate, OPENAI_KEYS } from '../auth/authenticate.js';
import { jsonBody } from '../http/json-body.js';
import { sendArchive } from './archive.js';

export interface BatchRoutesDeps {
  accounts: AccountsStore;
  create: CreateDeps;
  records: BatchRecords;
  bodyLimit: number;
  publicBase: (req: Request) => string;
  /** Creating and cancelling count as requests; reads as reads. */
  requestLimit: RequestHandler;
  readLimit: RequestHandler;
}

/**
 * OpenAI's Batches API (`client.batches.*`) over both endpoints, plus the relay's own: the lines
 * finished so far of a running batch, and a ZIP of every file of an ended one.
 */
export function batchRoutes(deps: BatchRoutesDeps) {
  const router = express.Router();
  const auth = authenticate(deps.accounts, OPENAI_KEYS);
  const own = async (res: Response, id: string) => {
    const batch = await deps.records.get(res.locals.caller!.accountId, id);
    if (!batch) throw new AppError('not_found', `No such Batch object: ${id}`, { param: 'batch_id' });
    return batch;
  };

  router.post('/v1/batches', auth, deps.requestLimit, jsonBody(deps.bodyLimit), async (req: Request, res: Response) => {
    const body = parseOrThrow(batchCreateBody, req.body);
    res.json(await createBatch(deps.create, res.locals.caller!, body, deps.publicBase(req)));
  });

  router.get('/v1/batches', auth, deps.readLimit, async (req, res) => {
    res.json(await deps.records.list(res.locals.caller!.accountId, parseOrThrow(batchListQuery, req.query)));
  });

  router.get('/v1/batches/:batchId', auth, deps.readLimit, async (req, res) => {
    res.json(await deps.records.present(await own(res, String(req.params.batchId))));
  });

  router.post('/v1/batches/:batchId/cancel', auth, deps.requestLimit, async (req, res) => {
    const batch = await own(res, String(req.params.batchId));
    const status = await deps.records.cancel(batch.id);
    if (status !== 'cancelling') throw new AppError('conflict', `a batch that is ${status} cannot be cancelled`, { retryable: false });
    res.json(await deps.records.present((await deps.records.read(batch.id))!));
  });

  router.get('/v1/batches/:batchId/results', auth, deps.readLimit, async (req, res) => {
    const batch = await own(res, String(req.params.batchId));
    const { after, limit } = parseOrThrow(batchResultsQuery, req.query);
    res.json(await readResults(deps.create.redis, deps.create.store, deps.records, batch, after, limit));
  });

  router.get('/v1/batches/:batchId/archive', auth, deps.readLimit, async (req, res) => {
    const batch = await own(res, String(req.params.batchId));
    if (!ENDED.has(batch.status))
      throw new AppError('conflict', `${batch.id} is ${batch.status}: its archive is ready once it has ended`, { retryable: false });
    await sendArchive(res, deps.create.store, batch);
  });

  return router;
}
