import express from 'express';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { AppError, getObject, isMissingObject, parseOrThrow, storeUnavailable, type BlobStore } from '@relay/core';
import { adminBatchListQuery, adminBatchListSchema, adminBatchSchema, ENDED, fileKey, type BatchRecords } from '@relay/batch';
import { errorResponses } from '@relay/jobs';
import { sendArchive } from '../batches/archive.js';
import { ADMIN_SECURITY, binaryAnswer, jsonAnswer, textAnswer } from '../openapi/parts.js';

const batchPath = z.object({ id: z.string().describe('The batch id') });
const batchFilePath = batchPath.extend({ which: z.enum(['output', 'error']) });

/**
 * Every account's batches for the operator (the console's Batches page): listed with their
 * progress, cancelled, their output and error files and archive downloaded. The same records
 * and archive as the Batches API; only who may reach them differs.
 */
export function adminBatchRoutes(records: BatchRecords, store: BlobStore) {
  const router = express.Router();
  const batchOr404 = async (id: string) => {
    const batch = await records.read(id);
    if (!batch) throw new AppError('not_found', `no batch ${id}`);
    return batch;
  };

  router.get('/batches', async (req, res) => {
    const query = parseOrThrow(adminBatchListQuery, req.query);
    res.json(await records.listAll({ accountId: query.account, offset: Number(query.cursor ?? 0), limit: query.limit }));
  });

  router.get('/batches/:id', async (req, res) => {
    const batch = await batchOr404(parseOrThrow(batchPath, req.params).id);
    res.json({ ...(await records.present(batch)), account_id: batch.accountId });
  });

  router.post('/batches/:id/cancel', async (req, res) => {
    const batch = await batchOr404(parseOrThrow(batchPath, req.params).id);
    const status = await records.cancel(batch.id);
    if (status !== 'cancelling') throw new AppError('conflict', `a batch that is ${status} cannot be cancelled`, { retryable: false });
    res.json({ ...(await records.present((await records.read(batch.id))!)), account_id: batch.accountId });
  });

  router.get('/batches/:id/files/:which', async (req, res) => {
    const params = batchFilePath.safeParse(req.params);
    // a file that is neither is no resource: a 404, as for any other unknown path
    if (!params.success) throw new AppError('not_found', 'files are output or error');
    const { id, which } = params.data;
    const batch = await batchOr404(id);
    const fileId = which === 'output' ? batch.outputFileId : batch.errorFileId;
    if (!fileId) throw new AppError('not_found', `${batch.id} has no ${which} file (yet)`);
    try {
      const object = await getObject(store, fileKey(fileId));
      res.set({
        'Content-Type': 'application/jsonl',
        'Content-Disposition': `attachment; filename="${batch.id}_${which}.jsonl"`,
        ...(object.contentLength ? { 'Content-Length': String(object.contentLength) } : {}),
      });
      object.body.pipe(res);
    } catch (error) {
      if (isMissingObject(error)) throw new AppError('not_found', `the ${which} file of ${batch.id} is gone from the store`);
      throw storeUnavailable(error);
    }
  });

  router.get('/batches/:id/archive', async (req, res) => {
    const batch = await batchOr404(parseOrThrow(batchPath, req.params).id);
    if (!ENDED.has(batch.status))
      throw new AppError('conflict', `${batch.id} is ${batch.status}: its archive is ready once it has ended`, { retryable: false });
    await sendArchive(res, store, batch);
  });

  return router;
}

const admin = { tags: ['admin'], security: ADMIN_SECURITY };
const ofBatch = { ...admin, requestParams: { path: batchPath } };

export const adminBatchPaths: ZodOpenApiPathsObject = {
  '/admin/batches': {
    get: {
      ...admin,
      summary: "Every account's batches (or one account's), newest first, with their progress",
      requestParams: { query: adminBatchListQuery },
      responses: { '200': jsonAnswer('A page of batches', adminBatchListSchema), ...errorResponses('openai', [400, 401]) },
    },
  },
  '/admin/batches/{id}': {
    get: {
      ...ofBatch,
      summary: 'One batch, of any account',
      responses: { '200': jsonAnswer('The batch', adminBatchSchema), ...errorResponses('openai', [401, 404]) },
    },
  },
  '/admin/batches/{id}/cancel': {
    post: {
      ...ofBatch,
      summary: 'Cancel a batch: nothing more starts, lines in flight finish',
      responses: { '200': jsonAnswer('The batch, cancelling', adminBatchSchema), ...errorResponses('openai', [401, 404, 409]) },
    },
  },
  '/admin/batches/{id}/files/{which}': {
    get: {
      ...admin,
      summary: "A batch's output or error file (JSONL)",
      requestParams: { path: batchFilePath },
      responses: { '200': textAnswer('The file', 'application/jsonl'), ...errorResponses('openai', [401, 404, 503]) },
    },
  },
  '/admin/batches/{id}/archive': {
    get: {
      ...ofBatch,
      summary: 'A ZIP of every file an ended batch made, with manifest.json',
      responses: { '200': binaryAnswer('The archive, streamed', 'application/zip'), ...errorResponses('openai', [401, 404, 409]) },
    },
  },
};
