import express from 'express';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { AppError, getObject, isMissingObject, parseOrThrow, presignGet, storeUnavailable, type BlobStore } from '@relay/core';
import { errorResponses, parseFileId } from '@relay/jobs';
import { binaryAnswer } from '../openapi/parts.js';

const filePath = z.object({ fileId: z.string().describe('As the links the relay hands out name it') });

/**
 * Stable links to stored results. `redirect` sends clients to a short-lived presigned URL of
 * the store; `proxy` streams the file through the relay, for stores clients cannot reach.
 */
export function filesRoutes(store: BlobStore, mode: 'redirect' | 'proxy', linkTtlSeconds: number) {
  const router = express.Router();
  router.get('/files/:fileId', async (req, res) => {
    const file = parseFileId(parseOrThrow(filePath, req.params).fileId);
    if (!file) throw new AppError('not_found', 'no such file');
    try {
      if (mode === 'redirect') {
        await store.client.send(new HeadObjectCommand({ Bucket: store.bucket, Key: file.key }));
        res.set('Cache-Control', 'no-store').redirect(302, await presignGet(store, file.key, linkTtlSeconds));
        return;
      }
      const object = await getObject(store, file.key);
      res.set({
        'Content-Type': object.contentType ?? 'application/octet-stream',
        'Cache-Control': 'private, max-age=86400, immutable',
        ...(object.contentLength !== undefined ? { 'Content-Length': String(object.contentLength) } : {}),
      });
      object.body.pipe(res);
    } catch (error) {
      if (isMissingObject(error)) throw new AppError('not_found', 'no such file (it may have passed the retention period)');
      throw storeUnavailable(error);
    }
  });
  return router;
}

export const filePaths: ZodOpenApiPathsObject = {
  '/files/{fileId}': {
    get: {
      tags: ['files'],
      summary: 'A stored result (image or audio)',
      requestParams: { path: filePath },
      responses: {
        '200': binaryAnswer('The file, as stored (FILES_MODE=proxy)', 'image/*', 'audio/*'),
        '302': { description: 'To a short-lived presigned URL of the store (FILES_MODE=redirect)' },
        ...errorResponses('openai', [404, 503]),
      },
    },
  },
};
