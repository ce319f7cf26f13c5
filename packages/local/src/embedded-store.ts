import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver, { type S3rverContext } from '@20minutes/s3rver';
import { DUMMY_ACCOUNT } from '@20minutes/s3rver/lib/models/account.js';
import { freePort } from './net.js';
import { verifySigV4, type Keys } from './sigv4.js';

/** The S3_* variables the relay's processes read. */
export interface S3Env {
  S3_ENDPOINT: string;
  S3_REGION: string;
  S3_BUCKET: string;
  S3_ACCESS_KEY_ID: string;
  S3_SECRET_ACCESS_KEY: string;
}

export interface S3Handle {
  env: S3Env;
  /** Stops answering; a local store keeps its files and can start again. */
  stop(): Promise<void>;
  /** Starts a stopped local store again, same port, files and keys (fault tests). */
  start?(): Promise<void>;
  /** Stops for good, and deletes the files of a store that drew its own temporary folder. */
  close(): Promise<void>;
}

/** s3rver's built-in key pair: public knowledge, so no store of ours accepts it. */
const BUILT_IN_KEY_ID = 'S3RVER';

/**
 * A key pair drawn for this store, known only to the process that runs it and to the relay's
 * processes it hands the S3_* variables to. s3rver's registry (one per process) must know it too;
 * its public built-in pair is taken out of it.
 */
function drawKeys() {
  const keys = { S3_ACCESS_KEY_ID: `relay${randomBytes(6).toString('hex')}`, S3_SECRET_ACCESS_KEY: randomBytes(24).toString('base64url') };
  DUMMY_ACCOUNT.revokeAccessKey(BUILT_IN_KEY_ID);
  DUMMY_ACCOUNT.createKeyPair(keys.S3_ACCESS_KEY_ID, keys.S3_SECRET_ACCESS_KEY);
  return keys;
}

type GateContext = Pick<S3rverContext, 'method' | 'url' | 'headers' | 'status' | 'type' | 'body'>;

const s3Error = (code: string, message: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`;

/**
 * Every request must be signed with this store's keys (SigV4, header or presigned query): s3rver
 * would serve an unsigned request as if it were the owner's, and anyone on the machine could then
 * list or overwrite the files behind the relay's links. s3rver's own check is relaxed
 * (allowMismatchedSignatures) because it cannot match the AWS SDK's bucket-level requests (sigv4.ts).
 */
function signedWith(keys: Keys) {
  return async (ctx: GateContext, next: () => Promise<void>) => {
    const verdict = verifySigV4(ctx, keys);
    if (verdict.ok) return next();
    ctx.status = 403;
    ctx.type = 'application/xml';
    ctx.body = s3Error(verdict.code, verdict.message);
  };
}

const decodedKey = (path: string) => {
  try {
    return decodeURIComponent(path);
  } catch {
    return undefined;
  }
};

/**
 * AbortMultipartUpload (`DELETE /bucket/key?uploadId=`), which s3rver answers 405: an upload
 * that failed mid-way (a result over the worker's `resultMaxBytes`, a link that dropped) then left its parts
 * on disk for good, and the SDK's failed abort hid why the upload had failed, so a final error
 * was retried as a store outage. Answers as S3 does: 204 once the parts are gone, 404
 * NoSuchUpload for an upload it does not hold under that key. Runs after the signature check.
 */
function abortsUploads(uploadsOf: (bucket: string) => string) {
  return async (ctx: Pick<S3rverContext, 'method' | 'path' | 'query' | 'status' | 'type' | 'body'>, next: () => Promise<void>) => {
    const uploadId = ctx.query.uploadId;
    if (ctx.method !== 'DELETE' || uploadId === undefined) return next();
    const [, bucket = '', ...key] = ctx.path.split('/');
    // names from the request become a path: a bucket name and s3rver's own hex ids only
    const folder =
      /^[a-z0-9][a-z0-9.-]{0,62}$/.test(bucket) && typeof uploadId === 'string' && /^[0-9a-f]{32}$/.test(uploadId)
        ? join(uploadsOf(bucket), uploadId)
        : undefined;
    const heldKey = folder === undefined ? undefined : await readFile(join(folder, 'key'), 'utf8').catch(() => undefined);
    if (folder === undefined || heldKey === undefined || heldKey !== decodedKey(key.join('/'))) {
      ctx.status = 404;
      ctx.type = 'application/xml';
      ctx.body = s3Error('NoSuchUpload', 'The specified multipart upload does not exist.');
      return;
    }
    await rm(folder, { recursive: true, force: true });
    ctx.status = 204;
  };
}

export interface EmbeddedStoreOptions {
  bucket: string;
  port?: number;
  host?: string;
  /** Where the objects are kept (npm start: .data/s3); a fresh temporary folder when unset. */
  directory?: string;
}

/**
 * The embedded S3-compatible store: @20minutes/s3rver (a maintained fork of s3rver) in this
 * process, keeping its files on local disk, answering signed requests only, with a key pair
 * drawn at each start. `npm start` runs it when S3_ENDPOINT is unset; tests use it as their
 * local store.
 */
export async function startEmbeddedStore(options: EmbeddedStoreOptions): Promise<S3Handle & { directory: string }> {
  const port = options.port ?? (await freePort());
  const host = options.host ?? '127.0.0.1';
  const drawn = options.directory === undefined;
  const directory = options.directory ?? mkdtempSync(join(tmpdir(), 'relay-s3-'));
  const keys = drawKeys();
  let server: S3rver | undefined;
  const handle: S3Handle & { directory: string } = {
    directory,
    env: { S3_ENDPOINT: `http://${host}:${port}`, S3_REGION: 'us-east-1', S3_BUCKET: options.bucket, ...keys },
    async start() {
      const starting = new S3rver({
        address: host,
        port,
        silent: true,
        directory,
        configureBuckets: [{ name: options.bucket }],
        allowMismatchedSignatures: true,
      });
      starting.middleware.unshift(signedWith({ accessKeyId: keys.S3_ACCESS_KEY_ID, secretAccessKey: keys.S3_SECRET_ACCESS_KEY }));
      // just before s3rver's router (the last middleware), where the path names the bucket
      starting.middleware.splice(
        -1,
        0,
        abortsUploads((bucket) => starting.store.getResourcePath(bucket, undefined, 'uploads')),
      );
      await starting.run();
      server = starting;
    },
    async stop() {
      const running = server;
      server = undefined;
      if (!running) return;
      const closed = running.close();
      // a store that stops drops what it was serving, as a crashed or unplugged one does: close()
      // alone waits for every request in flight, as long as a stalled client keeps one open
      running.httpServer?.closeAllConnections();
      await closed;
    },
    async close() {
      await handle.stop();
      if (drawn) await rm(directory, { recursive: true, force: true });
    },
  };
  await handle.start!();
  return handle;
}
