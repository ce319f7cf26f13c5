import { ensureBucket, type BlobStore, type Logger } from '@relay/core';

const RETRY_MS = 5_000;

/**
 * Creates the bucket when it is missing, trying again until the store answers: a store started
 * beside the relay (compose) may still be booting, and the worker must not die for it.
 */
export function createBucketWhenReachable(store: BlobStore, log: Logger) {
  const attempt = () =>
    ensureBucket(store).then(
      () => log.info({ bucket: store.bucket }, 'bucket ready'),
      (error: Error) => {
        log.warn({ bucket: store.bucket, err: error.message }, 'cannot create the bucket yet; trying again');
        setTimeout(attempt, RETRY_MS).unref();
      },
    );
  void attempt();
}
