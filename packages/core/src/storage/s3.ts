import type { Readable } from 'node:stream';
import {
  CopyObjectCommand,
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { AppError } from '../errors/app-error.js';
import { freshObject, type TakeFresh } from './fresh.js';
import { createSignedHttp, type SignedHttp } from './signed-http.js';

export interface S3Settings {
  S3_ENDPOINT?: string | undefined;
  S3_PUBLIC_ENDPOINT?: string | undefined;
  S3_REGION: string;
  S3_BUCKET: string;
  S3_ACCESS_KEY_ID?: string | undefined;
  S3_SECRET_ACCESS_KEY?: string | undefined;
  S3_FORCE_PATH_STYLE: boolean;
}

/** A bucket and the two clients that reach it: one for the relay, one for links clients follow. */
export interface BlobStore {
  client: S3Client;
  publicClient: S3Client;
  bucket: string;
  /** Single-object PUT and GET without the SDK's middleware (when the store has static keys). */
  fast?: SignedHttp;
  /** Where a file just stored is taken from before the store is asked (the api's answers: fresh.ts). */
  takeFresh?: TakeFresh;
}

function clientConfig(settings: S3Settings, endpoint: string | undefined): S3ClientConfig {
  const credentials =
    settings.S3_ACCESS_KEY_ID && settings.S3_SECRET_ACCESS_KEY
      ? { accessKeyId: settings.S3_ACCESS_KEY_ID, secretAccessKey: settings.S3_SECRET_ACCESS_KEY }
      : undefined;
  return {
    region: settings.S3_REGION,
    endpoint,
    forcePathStyle: endpoint ? settings.S3_FORCE_PATH_STYLE : false,
    credentials,
    // Checksums on every PUT break several S3-compatible stores; send them only when required.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  };
}

export function createBlobStore(settings: S3Settings): BlobStore {
  const client = new S3Client(clientConfig(settings, settings.S3_ENDPOINT));
  const publicEndpoint = settings.S3_PUBLIC_ENDPOINT ?? settings.S3_ENDPOINT;
  const publicClient = publicEndpoint === settings.S3_ENDPOINT ? client : new S3Client(clientConfig(settings, publicEndpoint));
  const credentials =
    settings.S3_ACCESS_KEY_ID && settings.S3_SECRET_ACCESS_KEY
      ? { accessKeyId: settings.S3_ACCESS_KEY_ID, secretAccessKey: settings.S3_SECRET_ACCESS_KEY }
      : undefined;
  // without static keys (an instance role, the default chain) the SDK resolves credentials itself
  const fast = credentials
    ? createSignedHttp({
        endpoint: new URL(settings.S3_ENDPOINT ?? `https://s3.${settings.S3_REGION}.amazonaws.com`),
        region: settings.S3_REGION,
        bucket: settings.S3_BUCKET,
        forcePathStyle: settings.S3_ENDPOINT ? settings.S3_FORCE_PATH_STYLE : false,
        credentials,
      })
    : undefined;
  return { client, publicClient, bucket: settings.S3_BUCKET, ...(fast ? { fast } : {}) };
}

export interface PutOptions {
  contentType: string;
  contentLength?: number;
  signal?: AbortSignal;
}

/**
 * Streams `body` into the bucket: one PUT when the length is known and under 5 GiB (S3's
 * single-PUT limit), multipart (lib-storage) when it is not.
 */
export async function putObject(store: BlobStore, key: string, body: Buffer | Readable, options: PutOptions): Promise<void> {
  const length = Buffer.isBuffer(body) ? body.length : options.contentLength;
  if (length !== undefined && length < 5 * 1024 ** 3 && store.fast) {
    await store.fast.put(key, body, options.contentType, length, options.signal);
    return;
  }
  if (length !== undefined && length < 5 * 1024 ** 3) {
    await store.client.send(
      new PutObjectCommand({ Bucket: store.bucket, Key: key, Body: body, ContentType: options.contentType, ContentLength: length }),
      { abortSignal: options.signal },
    );
    return;
  }
  const upload = new Upload({
    client: store.client,
    params: {
      Bucket: store.bucket,
      Key: key,
      Body: body,
      ContentType: options.contentType,
      ContentLength: options.contentLength,
    },
    queueSize: 2,
  });
  const abort = () => void upload.abort();
  options.signal?.addEventListener('abort', abort, { once: true });
  try {
    await upload.done();
  } finally {
    options.signal?.removeEventListener('abort', abort);
  }
}

/** The object's body as a stream; from byte `from` on when given (a ranged GET). */
export async function getObject(store: BlobStore, key: string, from?: number) {
  const fresh = from === undefined ? store.takeFresh?.(key) : undefined;
  return fresh ? freshObject(fresh) : storedObject(store, key, from);
}

async function storedObject(store: BlobStore, key: string, from?: number) {
  if (store.fast) return store.fast.get(key, from);
  const range = from ? `bytes=${from}-` : undefined;
  const out = await store.client.send(new GetObjectCommand({ Bucket: store.bucket, Key: key, Range: range }));
  return { body: out.Body as Readable, contentType: out.ContentType, contentLength: out.ContentLength };
}

/** A copy made by the store itself: no byte passes through the relay. */
export async function copyObject(store: BlobStore, from: string, to: string): Promise<void> {
  await store.client.send(
    new CopyObjectCommand({
      Bucket: store.bucket,
      Key: to,
      CopySource: `${store.bucket}/${encodeURIComponent(from).replace(/%2F/g, '/')}`,
    }),
  );
}

export async function deleteObject(store: BlobStore, key: string): Promise<void> {
  await store.client.send(new DeleteObjectCommand({ Bucket: store.bucket, Key: key }));
}

export async function getObjectBuffer(store: BlobStore, key: string): Promise<Buffer> {
  const fresh = store.takeFresh?.(key);
  if (fresh) return fresh.bytes;
  const { body } = await storedObject(store, key);
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Headers the store puts on its answer to a presigned GET, in place of the object's own (S3's response-* overrides). */
export interface PresignedAnswer {
  contentType?: string;
  contentDisposition?: string;
}

/** A short-lived GET link signed for the endpoint clients can reach. */
export function presignGet(store: BlobStore, key: string, expiresInSeconds: number, answer: PresignedAnswer = {}): Promise<string> {
  const command = new GetObjectCommand({
    Bucket: store.bucket,
    Key: key,
    ...(answer.contentType ? { ResponseContentType: answer.contentType } : {}),
    ...(answer.contentDisposition ? { ResponseContentDisposition: answer.contentDisposition } : {}),
  });
  return getSignedUrl(store.publicClient, command, { expiresIn: expiresInSeconds });
}

export async function ensureBucket(store: BlobStore): Promise<void> {
  try {
    await store.client.send(new HeadBucketCommand({ Bucket: store.bucket }));
  } catch {
    await store.client.send(new CreateBucketCommand({ Bucket: store.bucket }));
  }
}

export async function isStoreReachable(store: BlobStore): Promise<boolean> {
  try {
    await store.client.send(new HeadBucketCommand({ Bucket: store.bucket }));
    return true;
  } catch {
    return false;
  }
}

/** The store failed or is away: a 503 the client may retry, never mistaken for Redis being down. */
export function storeUnavailable(cause: unknown, message = 'the file store is unavailable; retry shortly'): AppError {
  return new AppError('unavailable', message, { retryAfterMs: 2_000, cause });
}

/** Whether a store error means the object is not there (a 404 to pass on, not an outage). */
export function isMissingObject(error: unknown): boolean {
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  const name = (error as Error)?.name;
  return status === 404 || name === 'NoSuchKey' || name === 'NotFound';
}
