import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import S3rver from 's3rver';
import { DUMMY_ACCOUNT } from 's3rver/lib/models/account.js';
import { createBlobStore, ensureBucket } from '@relay/core';
import { dockerAnswers } from './docker.js';
import { freePort, uniqueName } from './net.js';

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
  stop(): Promise<void>;
  /** Starts a stopped local store again, same port and files (fault tests). */
  start?(): Promise<void>;
}

/** s3rver's built-in account; it checks SigV4 signatures against it. */
const S3RVER_KEYS = { S3_ACCESS_KEY_ID: 'S3RVER', S3_SECRET_ACCESS_KEY: 'S3RVER' };

/**
 * A key pair of its own for a store only the relay may use (npm start): s3rver's built-in
 * S3RVER/S3RVER is public knowledge, so it is revoked in this process (a process that runs such a
 * store runs no other s3rver).
 */
function ownKeys() {
  const keys = { S3_ACCESS_KEY_ID: `relay${randomBytes(6).toString('hex')}`, S3_SECRET_ACCESS_KEY: randomBytes(24).toString('base64url') };
  DUMMY_ACCOUNT.revokeAccessKey(S3RVER_KEYS.S3_ACCESS_KEY_ID);
  DUMMY_ACCOUNT.createKeyPair(keys.S3_ACCESS_KEY_ID, keys.S3_SECRET_ACCESS_KEY);
  return keys;
}

/**
 * s3rver serves anonymous requests as if they were the owner's; a store anyone on the machine
 * could list and overwrite would let them replace the files behind the relay's links. A request
 * must carry a signature (header or presigned query); s3rver then checks it against the keys.
 */
async function refuseUnsigned(
  ctx: { headers: Record<string, unknown>; query: Record<string, unknown>; status: number; type: string; body: unknown },
  next: () => Promise<void>,
) {
  if ('authorization' in ctx.headers || 'X-Amz-Algorithm' in ctx.query || 'Signature' in ctx.query) return next();
  ctx.status = 403;
  ctx.type = 'application/xml';
  ctx.body = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>Requests must be signed</Message></Error>';
}

/** s3rver storing on local disk: the embedded store of `npm start` and the local test store. */
export async function startLocalS3(options: {
  port?: number;
  directory?: string;
  bucket: string;
  host?: string;
  signedOnly?: boolean;
}): Promise<S3Handle> {
  const port = options.port ?? (await freePort());
  const host = options.host ?? '127.0.0.1';
  const directory = options.directory ?? mkdtempSync(join(tmpdir(), 'relay-s3-'));
  const keys = options.signedOnly ? ownKeys() : S3RVER_KEYS;
  let server: S3rver | undefined;
  const handle = {
    env: { S3_ENDPOINT: `http://${host}:${port}`, S3_REGION: 'us-east-1', S3_BUCKET: options.bucket, ...keys },
    async start() {
      server = new S3rver({ address: host, port, silent: true, directory, configureBuckets: [{ name: options.bucket }] });
      if (options.signedOnly) server.middleware.unshift(refuseUnsigned);
      await server.run();
    },
    async stop() {
      await server?.close();
      server = undefined;
    },
  };
  await handle.start();
  return handle;
}

/**
 * An S3-compatible store for tests, with a bucket of its own: S3_ENDPOINT when set (with
 * S3_ACCESS_KEY_ID/S3_SECRET_ACCESS_KEY), RustFS when Docker answers, otherwise s3rver.
 */
export async function startS3(options: { own?: boolean } = {}): Promise<S3Handle> {
  const bucket = uniqueName('relay-test').toLowerCase();
  const given = process.env.S3_ENDPOINT;
  if (given && !options.own) {
    const env: S3Env = {
      S3_ENDPOINT: given,
      S3_REGION: process.env.S3_REGION ?? 'us-east-1',
      S3_BUCKET: bucket,
      S3_ACCESS_KEY_ID: process.env.S3_ACCESS_KEY_ID ?? '',
      S3_SECRET_ACCESS_KEY: process.env.S3_SECRET_ACCESS_KEY ?? '',
    };
    await ensureBucket(createBlobStore({ ...env, S3_FORCE_PATH_STYLE: true }));
    return { env, stop: async () => {} };
  }
  if (!options.own && (await dockerAnswers())) {
    const { GenericContainer, Wait } = await import('testcontainers');
    // the store compose runs (MinIO's images were withdrawn from Docker Hub in September 2026)
    const container = await new GenericContainer('rustfs/rustfs:1.0.0')
      .withCommand(['/data'])
      .withEnvironment({ RUSTFS_ACCESS_KEY: 'relaytest', RUSTFS_SECRET_KEY: 'relaytest-secret' })
      .withExposedPorts(9000)
      .withWaitStrategy(Wait.forHttp('/health', 9000))
      .start();
    const env: S3Env = {
      S3_ENDPOINT: `http://${container.getHost()}:${container.getMappedPort(9000)}`,
      S3_REGION: 'us-east-1',
      S3_BUCKET: bucket,
      S3_ACCESS_KEY_ID: 'relaytest',
      S3_SECRET_ACCESS_KEY: 'relaytest-secret',
    };
    await ensureBucket(createBlobStore({ ...env, S3_FORCE_PATH_STYLE: true }));
    return { env, stop: async () => void (await container.stop()) };
  }
  return startLocalS3({ bucket });
}
