import { createBlobStore, ensureBucket } from '@relay/core';
import { startEmbeddedStore, type S3Env, type S3Handle } from '@relay/local';
import { dockerAnswers } from './docker.js';
import { uniqueName } from './net.js';

export type { S3Env, S3Handle } from '@relay/local';

/** The embedded store npm start runs (signed requests only, keys drawn at start), on local disk. */
export const startLocalS3 = startEmbeddedStore;

/**
 * An S3-compatible store for tests, with a bucket of its own: S3_ENDPOINT when set (with
 * S3_ACCESS_KEY_ID/S3_SECRET_ACCESS_KEY), RustFS when Docker answers, otherwise the embedded store.
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
    return { env, stop: async () => {}, close: async () => {} };
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
    const stop = async () => void (await container.stop());
    return { env, stop, close: stop };
  }
  return startLocalS3({ bucket });
}
