import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
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

/** s3rver storing on local disk: the embedded store of `npm start` and the local test store. */
export async function startLocalS3(options: { port?: number; directory?: string; bucket: string; host?: string }): Promise<S3Handle> {
  const port = options.port ?? (await freePort());
  const host = options.host ?? '127.0.0.1';
  const directory = options.directory ?? mkdtempSync(join(tmpdir(), 'relay-s3-'));
  let server: S3rver | undefined;
  const handle = {
    env: { S3_ENDPOINT: `http://${host}:${port}`, S3_REGION: 'us-east-1', S3_BUCKET: options.bucket, ...S3RVER_KEYS },
    async start() {
      server = new S3rver({ address: host, port, silent: true, directory, configureBuckets: [{ name: options.bucket }] });
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
 * S3_ACCESS_KEY_ID/S3_SECRET_ACCESS_KEY), MinIO when Docker answers, otherwise s3rver.
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
    const container = await new GenericContainer('minio/minio:latest')
      .withCommand(['server', '/data'])
      .withEnvironment({ MINIO_ROOT_USER: 'minioadmin', MINIO_ROOT_PASSWORD: 'minioadmin' })
      .withExposedPorts(9000)
      .withWaitStrategy(Wait.forHttp('/minio/health/ready', 9000))
      .start();
    const env: S3Env = {
      S3_ENDPOINT: `http://${container.getHost()}:${container.getMappedPort(9000)}`,
      S3_REGION: 'us-east-1',
      S3_BUCKET: bucket,
      S3_ACCESS_KEY_ID: 'minioadmin',
      S3_SECRET_ACCESS_KEY: 'minioadmin',
    };
    await ensureBucket(createBlobStore({ ...env, S3_FORCE_PATH_STYLE: true }));
    return { env, stop: async () => void (await container.stop()) };
  }
  return startLocalS3({ bucket });
}
