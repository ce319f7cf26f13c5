import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import {
  DeleteObjectsCommand,
  HeadObjectCommand,
  ListObjectsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, describe, expect, test } from 'vitest';
import {
  copyObject,
  createBlobStore,
  deleteObject,
  ensureBucket,
  getObject,
  getObjectBuffer,
  isMissingObject,
  isStoreReachable,
  presignGet,
  putObject,
  type BlobStore,
} from '@relay/core';
import { startEmbeddedStore } from './embedded-store.js';

/**
 * The embedded store against every S3 call the relay makes (packages/core/src/storage: the SDK
 * and the signed-HTTP hot path; the worker's retention sweep; the api's HEAD before a link),
 * with the keys it drew and on the folder it was given, as npm start runs it.
 */
const directory = mkdtempSync(join(tmpdir(), 'relay-store-test-'));
const handle = await startEmbeddedStore({ bucket: 'relay', directory });
afterAll(async () => {
  await handle.close();
  rmSync(directory, { recursive: true, force: true });
});

const store = createBlobStore({ ...handle.env, S3_FORCE_PATH_STYLE: true });
/** The same bucket through the AWS SDK only, as a store without static keys would be reached. */
const sdkOnly: BlobStore = { client: store.client, publicClient: store.publicClient, bucket: store.bucket };
const text = async (body: Readable) => {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
};

describe('objects', () => {
  test('PUT on the signed-HTTP path and GET, whole and from a byte on; the files are under the given folder', async () => {
    await putObject(store, 'files/a b+c.txt', Buffer.from('0123456789'), { contentType: 'text/plain' });
    const whole = await getObject(store, 'files/a b+c.txt');
    expect(whole.contentType).toBe('text/plain');
    expect(whole.contentLength).toBe(10);
    expect(await text(whole.body)).toBe('0123456789');
    expect(await text((await getObject(store, 'files/a b+c.txt', 4)).body)).toBe('456789');
    expect(existsSync(join(directory, 'relay', 'files'))).toBe(true);
  });

  test('PUT and ranged GET through the SDK (PutObject, GetObject with Range), a stream of known length', async () => {
    await putObject(sdkOnly, 'files/sdk.bin', Readable.from([Buffer.from('abc'), Buffer.from('def')]), {
      contentType: 'application/octet-stream',
      contentLength: 6,
    });
    await store.client.send(
      new PutObjectCommand({ Bucket: store.bucket, Key: 'files/plain.txt', Body: 'plain', ContentType: 'text/plain' }),
    );
    expect(await text((await getObject(sdkOnly, 'files/sdk.bin', 2)).body)).toBe('cdef');
    expect((await getObjectBuffer(sdkOnly, 'files/plain.txt')).toString()).toBe('plain');
  });

  test('a multipart upload (lib-storage) of a stream of unknown length: three parts, read back whole', async () => {
    const part = 5 * 1024 * 1024;
    const blob = randomBytes(2 * part + 12_345);
    const chunks = Array.from({ length: Math.ceil(blob.length / 65_536) }, (_, i) => blob.subarray(i * 65_536, (i + 1) * 65_536));
    const sent: string[] = [];
    const record = 'record-commands';
    store.client.middlewareStack.add((next, context) => (args) => (sent.push(context.commandName!), next(args)), {
      step: 'initialize',
      name: record,
    });
    try {
      await putObject(store, 'results/big.bin', Readable.from(chunks), { contentType: 'application/octet-stream' });
    } finally {
      store.client.middlewareStack.remove(record);
    }
    expect(sent.sort()).toEqual(['CompleteMultipartUploadCommand', 'CreateMultipartUploadCommand', ...Array(3).fill('UploadPartCommand')]);
    const head = await store.client.send(new HeadObjectCommand({ Bucket: store.bucket, Key: 'results/big.bin' }));
    expect(head.ContentLength).toBe(blob.length);
    expect((await getObjectBuffer(store, 'results/big.bin')).equals(blob)).toBe(true);
  });

  test('HEAD and GET of a missing object read as missing, not as an outage', async () => {
    const head = store.client.send(new HeadObjectCommand({ Bucket: store.bucket, Key: 'files/none' }));
    await expect(head).rejects.toSatisfy(isMissingObject);
    await expect(getObject(store, 'files/none')).rejects.toSatisfy(isMissingObject);
    await expect(getObject(sdkOnly, 'files/none')).rejects.toSatisfy(isMissingObject);
  });

  test('CopyObject by the store, then DeleteObject', async () => {
    await putObject(store, 'inputs/src.txt', Buffer.from('copied'), { contentType: 'text/plain' });
    await copyObject(store, 'inputs/src.txt', 'files/dst.txt');
    expect((await getObjectBuffer(store, 'files/dst.txt')).toString()).toBe('copied');
    await deleteObject(store, 'inputs/src.txt');
    await expect(getObject(store, 'inputs/src.txt')).rejects.toSatisfy(isMissingObject);
  });
});

describe('links', () => {
  test('a presigned GET works without other credentials; a tampered one and an unsigned one are refused', async () => {
    await putObject(store, 'files/linked.txt', Buffer.from('by link'), { contentType: 'text/plain' });
    const url = await presignGet(store, 'files/linked.txt', 60);
    const answer = await fetch(url);
    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe('by link');
    const tampered = new URL(url);
    tampered.searchParams.set('X-Amz-Signature', '0'.repeat(64));
    expect((await fetch(tampered)).status).toBe(403);
    expect((await fetch(`${handle.env.S3_ENDPOINT}/relay/files/linked.txt`)).status).toBe(403);
  });
});

describe('listing and sweeping', () => {
  const keys = ['old/a', 'old/b', 'old/c', 'old/d', 'old/e'];

  test('ListObjects (v1) pages with a marker, as the retention sweep reads; ListObjectsV2 lists a prefix', async () => {
    for (const key of keys) await putObject(store, key, Buffer.from('x'), { contentType: 'text/plain' });
    const seen: string[] = [];
    let marker: string | undefined;
    do {
      const page = await store.client.send(new ListObjectsCommand({ Bucket: store.bucket, Prefix: 'old/', Marker: marker, MaxKeys: 2 }));
      const contents = page.Contents ?? [];
      seen.push(...contents.map((o) => o.Key!));
      expect(contents.every((o) => o.LastModified instanceof Date)).toBe(true);
      marker = page.IsTruncated ? (page.NextMarker ?? contents.at(-1)?.Key) : undefined;
    } while (marker);
    expect(seen).toEqual(keys);
    const v2 = await store.client.send(new ListObjectsV2Command({ Bucket: store.bucket, Prefix: 'old/' }));
    expect(v2.Contents?.map((o) => o.Key)).toEqual(keys);
  });

  test('DeleteObjects removes many in one call', async () => {
    const answer = await store.client.send(
      new DeleteObjectsCommand({ Bucket: store.bucket, Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true } }),
    );
    expect(answer.Errors ?? []).toEqual([]);
    const left = await store.client.send(new ListObjectsCommand({ Bucket: store.bucket, Prefix: 'old/' }));
    expect(left.Contents ?? []).toEqual([]);
  });
});

describe('buckets and keys', () => {
  test('HeadBucket answers for the configured bucket; CreateBucket makes a missing one', async () => {
    expect(await isStoreReachable(store)).toBe(true);
    const other = createBlobStore({ ...handle.env, S3_BUCKET: 'made-at-start', S3_FORCE_PATH_STYLE: true });
    expect(await isStoreReachable(other)).toBe(false);
    await ensureBucket(other);
    expect(await isStoreReachable(other)).toBe(true);
  });

  test("only the drawn keys open it: not s3rver's public built-in pair, not a wrong secret, not no signature", async () => {
    const withKeys = (accessKeyId: string, secretAccessKey: string) =>
      new S3Client({
        endpoint: handle.env.S3_ENDPOINT,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: { accessKeyId, secretAccessKey },
      });
    const list = new ListObjectsCommand({ Bucket: 'relay' });
    const refused = { $metadata: { httpStatusCode: 403 } };
    await expect(withKeys('S3RVER', 'S3RVER').send(list)).rejects.toMatchObject(refused);
    await expect(withKeys(handle.env.S3_ACCESS_KEY_ID, 'not-the-secret').send(list)).rejects.toMatchObject(refused);
    expect((await fetch(`${handle.env.S3_ENDPOINT}/relay?list-type=2`)).status).toBe(403);
    expect((await fetch(`${handle.env.S3_ENDPOINT}/relay/files/planted.txt`, { method: 'PUT', body: 'planted' })).status).toBe(403);
  });

  test('stopped and started again: same address, same keys, the files still there', async () => {
    await handle.stop();
    expect(await isStoreReachable(store)).toBe(false);
    await handle.start!();
    expect((await getObjectBuffer(store, 'files/dst.txt')).toString()).toBe('copied');
  });

  test('closed for good: the folder it was given stays (npm start keeps its files), a temporary folder it drew is deleted', async () => {
    const drawn = await startEmbeddedStore({ bucket: 'relay' });
    const drawnStore = createBlobStore({ ...drawn.env, S3_FORCE_PATH_STYLE: true });
    await putObject(drawnStore, 'files/kept.txt', Buffer.from('kept'), { contentType: 'text/plain' });
    expect(existsSync(join(drawn.directory, 'relay', 'files'))).toBe(true);
    await drawn.close();
    expect(existsSync(drawn.directory)).toBe(false);
    await handle.close();
    expect(existsSync(join(directory, 'relay', 'files'))).toBe(true);
  });
});
