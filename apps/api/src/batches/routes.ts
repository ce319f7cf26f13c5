import express, { type Request, type RequestHandler, type Response } from 'express';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { AppError, parseOrThrow } from '@relay/core';
import {
  batchCreateBody,
  batchListQuery,
  batchListSchema,
  batchObjectSchema,
  batchResultsQuery,
  batchResultsSchema,
  createBatch,
  ENDED,
  readResults,
  type BatchRecords,
  type CreateDeps,
} from '@relay/batch';
import type { AccountsStore } from '../auth/accounts.js';
import { authenticate, OPENAI_KEYS } from '../auth/authenticate.js';
import { errorResponses, SECURITY, type Doors } from '@relay/jobs';
import { jsonBody } from '../http/json-body.js';
import { binaryAnswer, jsonAnswer, jsonRequest } from '../openapi/parts.js';
import { sendArchive } from './archive.js';

const batchPath = z.object({ batchId: z.string() });

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
  const own = async (req: Request, res: Response) => {
    const id = parseOrThrow(batchPath, req.params).batchId;
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
    res.json(await deps.records.present(await own(req, res)));
  });

  router.post('/v1/batches/:batchId/cancel', auth, deps.requestLimit, async (req, res) => {
    const batch = await own(req, res);
    const status = await deps.records.cancel(batch.id);
    if (status !== 'cancelling') throw new AppError('conflict', `a batch that is ${status} cannot be cancelled`, { retryable: false });
    res.json(await deps.records.present((await deps.records.read(batch.id))!));
  });

  router.get('/v1/batches/:batchId/results', auth, deps.readLimit, async (req, res) => {
    const batch = await own(req, res);
    const { after, limit } = parseOrThrow(batchResultsQuery, req.query);
    res.json(await readResults(deps.create.redis, deps.create.store, deps.records, batch, after, limit));
  });

  router.get('/v1/batches/:batchId/archive', auth, deps.readLimit, async (req, res) => {
    const batch = await own(req, res);
    if (!ENDED.has(batch.status))
      throw new AppError('conflict', `${batch.id} is ${batch.status}: its archive is ready once it has ended`, { retryable: false });
    await sendArchive(res, deps.create.store, batch);
  });

  return router;
}

const batch = { tags: ['batch'], security: SECURITY.openai };
const ofBatch = { ...batch, requestParams: { path: batchPath } };

/** The endpoints a batch may name come from the doors that take batches. */
export const batchPaths = (doors: Pick<Doors, 'batchEndpoints'>): ZodOpenApiPathsObject => ({
  '/v1/batches': {
    post: {
      ...batch,
      summary: 'Create a batch from an uploaded input file',
      description: `endpoint is one of ${doors.batchEndpoints.join(', ')}. The input is validated first: format errors fail the batch (status failed, errors.data with line numbers); a line breaking a rule of its endpoint is not run and gets the synchronous 400 in the error file. Then the most the other lines can cost is held (402 if the balance does not cover it).`,
      requestBody: jsonRequest(batchCreateBody),
      responses: {
        '200': jsonAnswer('The batch (in_progress, or failed in validation)', batchObjectSchema),
        ...errorResponses('openai', [400, 401, 402, 404, 413, 415, 429, 503]),
      },
    },
    get: {
      ...batch,
      summary: "The account's batches, newest first",
      requestParams: { query: batchListQuery },
      responses: { '200': jsonAnswer('A page of batches', batchListSchema), ...errorResponses('openai', [400, 401, 429]) },
    },
  },
  '/v1/batches/{batchId}': {
    get: {
      ...ofBatch,
      summary: 'One batch, with its counts and progress',
      responses: { '200': jsonAnswer('The batch', batchObjectSchema), ...errorResponses('openai', [401, 404, 429]) },
    },
  },
  '/v1/batches/{batchId}/cancel': {
    post: {
      ...ofBatch,
      summary: 'Cancel a batch: nothing more starts, lines in flight finish and are kept',
      responses: { '200': jsonAnswer('The batch, cancelling', batchObjectSchema), ...errorResponses('openai', [401, 404, 409, 429]) },
    },
  },
  '/v1/batches/{batchId}/results': {
    get: {
      ...batch,
      summary: 'The lines of a running batch finished so far, in the order they finished (relay extension)',
      requestParams: { path: batchPath, query: batchResultsQuery },
      responses: {
        '200': jsonAnswer('Output and error lines', batchResultsSchema),
        ...errorResponses('openai', [400, 401, 404, 409, 429, 503]),
      },
    },
  },
  '/v1/batches/{batchId}/archive': {
    get: {
      ...ofBatch,
      summary: 'A ZIP of every file an ended batch delivered, with manifest.json (relay extension)',
      responses: {
        '200': binaryAnswer(
          'files/{custom_id}/{index}.{ext} and manifest.json (custom_id -> path, bytes, sha256, url), streamed',
          'application/zip',
        ),
        ...errorResponses('openai', [401, 404, 409, 429]),
      },
    },
  },
});
