import express, { type RequestHandler } from 'express';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import {
  AppError,
  type BlobStore,
  deleteObject,
  getObject,
  isMissingObject,
  type Logger,
  parseOrThrow,
  storeUnavailable,
} from '@relay/core';
import type { AccountsStore } from '../auth/accounts.js';
import { authenticate, OPENAI_KEYS } from '../auth/authenticate.js';
import { fileDeletedSchema, fileKey, fileListQuery, fileListSchema, fileObjectSchema, visibleFile, type FileRecords } from '@relay/batch';
import { errorResponses, SECURITY } from '@relay/jobs';
import { jsonAnswer, textAnswer } from '../openapi/parts.js';
import { receiveUpload, type UploadLimits } from './upload.js';

const filePath = z.object({ fileId: z.string() });
/** The upload's form, as OpenAI's SDKs send it (read by a streaming parser: upload.ts). */
const uploadForm = z.object({ file: z.string().meta({ format: 'binary' }).describe('The JSONL'), purpose: z.literal('batch') });

export interface BatchFilesDeps {
  accounts: AccountsStore;
  store: BlobStore;
  records: FileRecords;
  limits: UploadLimits;
  /** Uploads count as requests; reads as reads. */
  requestLimit: RequestHandler;
  readLimit: RequestHandler;
  log: Logger;
}

/**
 * OpenAI's Files API for batch inputs and outputs (`client.files.*`): uploads stream into the
 * store, metadata is a small hash in Redis, and a file exists only for the account that made it.
 */
export function batchFilesRoutes(deps: BatchFilesDeps) {
  const router = express.Router();
  const auth = authenticate(deps.accounts, OPENAI_KEYS);
  const own = async (accountId: string, params: unknown) => {
    const id = parseOrThrow(filePath, params).fileId;
    const file = await deps.records.get(accountId, id);
    if (!file) throw new AppError('not_found', `No such File object: ${id}`, { param: 'file_id' });
    return file;
  };

  router.post('/v1/files', auth, deps.requestLimit, async (req, res) => {
    const { accountId } = res.locals.caller!;
    const id = deps.records.newId();
    const key = fileKey(id);
    let received;
    try {
      received = await receiveUpload(req, deps.store, key, deps.limits);
      if (received.purpose !== 'batch') {
        throw new AppError(
          'invalid_request',
          received.purpose === undefined ? 'purpose is required: "batch"' : `purpose "${received.purpose}" is not supported here: "batch"`,
          { param: 'purpose' },
        );
      }
    } catch (error) {
      // a partial upload left behind is only storage, but someone should know it is there
      await deleteObject(deps.store, key).catch((err: Error) =>
        deps.log.warn({ key, err: err.message }, 'a refused upload could not be removed from the store'),
      );
      throw error;
    }
    const file = {
      id,
      object: 'file' as const,
      bytes: received.bytes,
      created_at: Math.floor(Date.now() / 1000),
      filename: received.filename,
      purpose: 'batch' as const,
      status: 'processed' as const,
      expires_at: null,
      status_details: null,
      accountId,
      lines: received.lines,
    };
    await deps.records.save(file);
    res.json(visibleFile(file));
  });

  router.get('/v1/files', auth, deps.readLimit, async (req, res) => {
    res.json(await deps.records.list(res.locals.caller!.accountId, parseOrThrow(fileListQuery, req.query)));
  });

  router.get('/v1/files/:fileId', auth, deps.readLimit, async (req, res) => {
    res.json(visibleFile(await own(res.locals.caller!.accountId, req.params)));
  });

  router.get('/v1/files/:fileId/content', auth, deps.readLimit, async (req, res) => {
    const file = await own(res.locals.caller!.accountId, req.params);
    try {
      const object = await getObject(deps.store, fileKey(file.id));
      res.set({
        'Content-Type': 'application/jsonl',
        'Content-Length': String(object.contentLength ?? file.bytes),
        'Content-Disposition': `attachment; filename="${file.filename.replace(/[^\w.-]/g, '_')}"`,
      });
      object.body.pipe(res);
    } catch (error) {
      if (isMissingObject(error)) throw new AppError('not_found', `the content of ${file.id} is gone from the store`);
      throw storeUnavailable(error);
    }
  });

  router.delete('/v1/files/:fileId', auth, deps.requestLimit, async (req, res) => {
    const file = await own(res.locals.caller!.accountId, req.params);
    await deleteObject(deps.store, fileKey(file.id)).catch((error: unknown) => {
      if (!isMissingObject(error)) throw storeUnavailable(error);
    });
    await deps.records.remove(file);
    res.json({ id: file.id, object: 'file', deleted: true } satisfies z.input<typeof fileDeletedSchema>);
  });

  return router;
}

const files = { tags: ['batch'], security: SECURITY.openai };
const ofFile = { ...files, requestParams: { path: filePath } };

/** OpenAI's Files API, for batch inputs (purpose "batch") and the outputs batches write. */
export const batchFilePaths: ZodOpenApiPathsObject = {
  '/v1/files': {
    post: {
      ...files,
      summary: 'Upload a batch input file (JSONL)',
      description:
        'multipart/form-data with `file` and `purpose=batch`; streamed into the store; at most 200 MiB and 50,000 lines by default (tuning.api.batchFileMaxBytes and batchFileMaxLines).',
      requestBody: { required: true, content: { 'multipart/form-data': { schema: uploadForm } } },
      responses: { '200': jsonAnswer('The file', fileObjectSchema), ...errorResponses('openai', [400, 401, 413, 415, 429, 503]) },
    },
    get: {
      ...files,
      summary: "The account's files, newest first",
      requestParams: { query: fileListQuery },
      responses: { '200': jsonAnswer('A page of files', fileListSchema), ...errorResponses('openai', [400, 401, 429]) },
    },
  },
  '/v1/files/{fileId}': {
    get: {
      ...ofFile,
      summary: 'One file',
      responses: { '200': jsonAnswer('The file', fileObjectSchema), ...errorResponses('openai', [401, 404, 429]) },
    },
    delete: {
      ...ofFile,
      summary: 'Delete a file and its content',
      responses: { '200': jsonAnswer('Deleted', fileDeletedSchema), ...errorResponses('openai', [401, 404, 429, 503]) },
    },
  },
  '/v1/files/{fileId}/content': {
    get: {
      ...ofFile,
      summary: "A file's content",
      responses: { '200': textAnswer('The JSONL', 'application/jsonl'), ...errorResponses('openai', [401, 404, 429, 503]) },
    },
  },
};
