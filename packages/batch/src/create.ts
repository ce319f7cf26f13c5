import type { Redis } from 'ioredis';
import {
  AppError,
  copyObject,
  deleteObject,
  isMissingObject,
  storeUnavailable,
  type BlobStore,
  type Catalog,
  type Logger,
} from '@relay/core';
import type { Billing } from '@relay/billing';
import { batchEndpoint } from './endpoints.js';
import { fileKey, type FileRecords } from './files/store.js';
import { inputCopyKey, invalidLinesKey } from './keys.js';
import type { BatchRecords, BatchSettings } from './records.js';
import type { BatchCreateBody, BatchError, BatchObject } from './schema.js';
import { validateInput } from './validate-input.js';

export interface CreateDeps {
  redis: Redis;
  store: BlobStore;
  billing: Billing;
  records: BatchRecords;
  files: FileRecords;
  catalog: Catalog;
  settings: BatchSettings;
  /** How long a batch may run before it expires (24 h; shorter in tests). */
  windowSeconds: number;
  log: Logger;
}

/**
 * POST /v1/batches: the input is checked through before anything is held (format errors fail the
 * batch, lines breaking a rule get their error line and never run), then the most the batch can
 * cost is held (402 when the balance does not cover it) and the workers take it from there. The
 * batch reads its own copy of the input, so deleting the uploaded file cannot pull it away.
 */
export async function createBatch(
  deps: CreateDeps,
  caller: { accountId: string; keyId: string },
  body: BatchCreateBody,
  linkBase: string,
): Promise<BatchObject> {
  const file = await deps.files.get(caller.accountId, body.input_file_id);
  if (!file) throw new AppError('not_found', `No such File object: ${body.input_file_id}`, { param: 'input_file_id' });
  if (file.purpose !== 'batch')
    throw new AppError('invalid_request', `${file.id} is a batch output, not a batch input (purpose "batch")`, { param: 'input_file_id' });
  const endpoint = batchEndpoint(deps.catalog, body.endpoint);
  const id = deps.records.newId();
  const salt = deps.records.newSalt();
  try {
    await copyObject(deps.store, fileKey(file.id), inputCopyKey(id));
  } catch (error) {
    if (isMissingObject(error))
      throw new AppError('not_found', `the content of ${file.id} is gone from the store`, { param: 'input_file_id' });
    throw storeUnavailable(error);
  }
  // copies left behind are only storage, but someone should know they are there
  const cleanUp = () =>
    Promise.all(
      [inputCopyKey(id), invalidLinesKey(id)].map((key) =>
        deleteObject(deps.store, key).catch((err: Error) =>
          deps.log.warn({ batchId: id, key, err: err.message }, "a refused batch's copy could not be removed from the store"),
        ),
      ),
    );
  let summary;
  try {
    summary = await validateInput(deps.store, inputCopyKey(id), endpoint, { id, salt }, deps.settings);
  } catch (error) {
    await cleanUp();
    throw error instanceof AppError ? error : storeUnavailable(error);
  }
  const now = Math.floor(Date.now() / 1000);
  const broken: BatchError[] =
    summary.total === 0
      ? [{ code: 'empty_file', message: 'the input file holds no request', param: 'input_file_id', line: null }]
      : summary.broken;
  const fields = {
    id,
    accountId: caller.accountId,
    keyId: caller.keyId,
    endpoint: body.endpoint,
    input_file_id: file.id,
    metadata: body.metadata ? JSON.stringify(body.metadata) : '',
    created_at: now,
    total: summary.total,
    link_base: linkBase,
    salt,
    settings: JSON.stringify(deps.settings),
  };
  if (broken.length) {
    await cleanUp();
    await deps.records.create({ ...fields, status: 'failed', failed_at: now, errors: JSON.stringify(broken) }, true);
    return deps.records.present((await deps.records.read(id))!);
  }

  const k = deps.records.keys;
  await deps.records.create(
    { ...fields, status: 'validating', failed: summary.refused.length, invalid: summary.refused.length, cursor_line: 1, cursor_offset: 0 },
    true,
  );
  if (summary.refused.length) {
    const bits = deps.redis.pipeline();
    for (const line of summary.refused) bits.setbit(k.done(id), line, 1);
    await bits.exec();
  }
  const lines = summary.total - summary.refused.length;
  try {
    await deps.billing.hold({
      jobId: id,
      accountId: caller.accountId,
      keyId: caller.keyId,
      model: 'batch',
      amount: summary.amount,
      units: `${lines} lines`,
    });
  } catch (error) {
    await deps.redis.multi().del(k.batch(id), k.done(id)).zrem(k.account(caller.accountId), id).zrem(k.active, id).exec();
    await cleanUp();
    throw error;
  }
  await deps.redis.hset(k.batch(id), { status: 'in_progress', in_progress_at: now, expires_at: now + deps.windowSeconds });
  return deps.records.present((await deps.records.read(id))!);
}
