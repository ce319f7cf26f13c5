import express from 'express';
import { AppError, getObject, isMissingObject, parseOrThrow, storeUnavailable, type BlobStore } from '@relay/core';
import { adminBatchListQuery, ENDED, fileKey, type BatchRecords } from '@relay/batch';
import { sendArchive } from '../batches/archive.js';

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
    const batch = await batchOr404(String(req.params.id));
    res.json({ ...(await records.present(batch)), account_id: batch.accountId });
  });

  router.post('/batches/:id/cancel', async (req, res) => {
    const batch = await batchOr404(String(req.params.id));
    const status = await records.cancel(batch.id);
    if (status !== 'cancelling') throw new AppError('conflict', `a batch that is ${status} cannot be cancelled`, { retryable: false });
    res.json({ ...(await records.present((await records.read(batch.id))!)), account_id: batch.accountId });
  });

  router.get('/batches/:id/files/:which', async (req, res) => {
    const batch = await batchOr404(String(req.params.id));
    const which = String(req.params.which);
    const fileId = which === 'output' ? batch.outputFileId : which === 'error' ? batch.errorFileId : undefined;
    if (!fileId)
      throw new AppError(
        'not_found',
        which === 'output' || which === 'error' ? `${batch.id} has no ${which} file (yet)` : 'files are output or error',
      );
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
    const batch = await batchOr404(String(req.params.id));
    if (!ENDED.has(batch.status))
      throw new AppError('conflict', `${batch.id} is ${batch.status}: its archive is ready once it has ended`, { retryable: false });
    await sendArchive(res, store, batch);
  });

  return router;
}
