import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { AbortMultipartUploadCommand, CreateMultipartUploadCommand, UploadPartCommand } from '@aws-sdk/client-s3';
import { afterAll, expect, test } from 'vitest';
import { createBlobStore } from '@relay/core';
import { startEmbeddedStore } from './embedded-store.js';

/**
 * AbortMultipartUpload on the embedded store (s3rver answers it 405 on its own): an upload that
 * failed mid-way must leave no part on disk, and the abort must not fail and hide why.
 */
const handle = await startEmbeddedStore({ bucket: 'aborts' });
afterAll(() => handle.close());
const store = createBlobStore({ ...handle.env, S3_FORCE_PATH_STYLE: true });
const Bucket = store.bucket;
const uploads = join(handle.directory, Bucket, '._S3rver_uploads');
const inProgress = () => (existsSync(uploads) ? readdirSync(uploads) : []);

async function startUpload(Key: string) {
  const { UploadId } = await store.client.send(new CreateMultipartUploadCommand({ Bucket, Key, ContentType: 'image/png' }));
  await store.client.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber: 1, Body: Buffer.alloc(64 * 1024, 1) }));
  return UploadId!;
}
const abort = (Key: string, UploadId: string) => store.client.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId }));
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.fail('the abort succeeded'),
    (error: { name: string; $metadata: { httpStatusCode: number } }) => [error.name, error.$metadata.httpStatusCode],
  );

test('an abort removes the upload and its parts (204); a second one is NoSuchUpload (404)', async () => {
  const id = await startUpload('files/job/0.png');
  expect(inProgress()).toEqual([id]);
  expect((await abort('files/job/0.png', id)).$metadata.httpStatusCode).toBe(204);
  expect(inProgress()).toEqual([]);
  expect(await refusal(abort('files/job/0.png', id))).toEqual(['NoSuchUpload', 404]);
});

test('an abort naming another key, or an id that is no upload id, removes nothing', async () => {
  const id = await startUpload('files/job/1.png');
  expect(await refusal(abort('files/job/2.png', id))).toEqual(['NoSuchUpload', 404]);
  expect(await refusal(abort('files/job/1.png', '../../../aborts'))).toEqual(['NoSuchUpload', 404]);
  expect(inProgress()).toEqual([id]);
  await abort('files/job/1.png', id);
  expect(inProgress()).toEqual([]);
});

test('an unsigned abort is refused before it is looked at', async () => {
  const id = await startUpload('files/job/3.png');
  const res = await fetch(`${handle.env.S3_ENDPOINT}/${Bucket}/files/job/3.png?uploadId=${id}`, { method: 'DELETE' });
  expect(res.status).toBe(403);
  expect(inProgress()).toEqual([id]);
  await abort('files/job/3.png', id);
});
