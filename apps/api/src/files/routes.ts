import express from 'express';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { AppError, getObject, isMissingObject, parseOrThrow, presignGet, storeUnavailable, type BlobStore } from '@relay/core';
import { CONTENT_TYPES, errorResponses, parseFileId } from '@relay/jobs';
import { binaryAnswer } from '../openapi/parts.js';

const filePath = z.object({ fileId: z.string().describe('As the links the relay hands out name it') });

/** The types served as stored: the files every capability writes (images, audio, ...), nothing else. */
const SERVED_TYPES = new Set(Object.values(CONTENT_TYPES));
/** Their media ranges, as the OpenAPI document lists a file's answers (`image/*`, `audio/*`, ...). */
const MEDIA = [...new Set([...SERVED_TYPES].map((type) => `${type.split('/')[0]}/*`))];

/**
 * What a stored file is served as, whatever its object says: its type only if it is one the
 * relay writes (else `application/octet-stream`), and then inline, as the media it is.
 */
export function servedAs(fileId: string, storedType: string | undefined) {
  const type = storedType?.trim().toLowerCase();
  const served = type !== undefined && SERVED_TYPES.has(type);
  const contentType = served ? type : 'application/octet-stream';
  const inline = served;
  return { contentType, contentDisposition: `${inline ? 'inline' : 'attachment'}; filename="${fileId}"` };
}

/**
 * On every answer: the browser takes the type as given (never sniffs markup out of the bytes),
 * and a document the relay's origin shows can load nothing and run no script.
 */
const UNTRUSTED_BYTES = { 'X-Content-Type-Options': 'nosniff', 'Content-Security-Policy': "default-src 'none'; sandbox" };

/**
 * Stable links to stored results. `redirect` sends clients to a short-lived presigned URL of
 * the store; `proxy` streams the file through the relay, for stores clients cannot reach.
 */
export function filesRoutes(store: BlobStore, mode: 'redirect' | 'proxy', linkTtlSeconds: number) {
  const router = express.Router();
  router.get('/files/:fileId', async (req, res) => {
    res.set(UNTRUSTED_BYTES);
    const { fileId } = parseOrThrow(filePath, req.params);
    const file = parseFileId(fileId);
    if (!file) throw new AppError('not_found', 'no such file');
    try {
      if (mode === 'redirect') {
        const head = await store.client.send(new HeadObjectCommand({ Bucket: store.bucket, Key: file.key }));
        // the store's answer to the link carries the same type and disposition as a proxied one
        const link = await presignGet(store, file.key, linkTtlSeconds, servedAs(fileId, head.ContentType));
        res.set('Cache-Control', 'no-store').redirect(302, link);
        return;
      }
      const object = await getObject(store, file.key);
      const served = servedAs(fileId, object.contentType);
      res.set({
        'Content-Type': served.contentType,
        'Content-Disposition': served.contentDisposition,
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
      summary: `A stored result (${MEDIA.map((media) => media.split('/')[0]).join(', ')})`,
      requestParams: { path: filePath },
      responses: {
        '200': binaryAnswer(
          `The file (FILES_MODE=proxy), typed as the relay stored it (${[...SERVED_TYPES].join(', ')}), with X-Content-Type-Options: nosniff and a sandboxing Content-Security-Policy; any other type as application/octet-stream, an attachment`,
          ...MEDIA,
          'application/octet-stream',
        ),
        '302': { description: 'To a short-lived presigned URL of the store (FILES_MODE=redirect)' },
        ...errorResponses('openai', [404, 503]),
      },
    },
  },
};
