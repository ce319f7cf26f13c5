import { SOURCE_NODE_ARGS, spawnReady, type AppProcess } from './app-process.js';
import type { EmbeddedStoreOptions, S3Env } from './embedded-store.js';
import { freePort } from './net.js';

/** The embedded store in a child process (store-main.ts), with the S3_* variables it announced. */
export async function spawnStore(options: EmbeddedStoreOptions): Promise<{ env: S3Env; process: AppProcess }> {
  const port = options.port ?? (await freePort());
  const child = await spawnReady('store', [...SOURCE_NODE_ARGS, 'packages/local/src/store-main.ts'], {
    STORE_BUCKET: options.bucket,
    STORE_PORT: String(port),
    STORE_DIR: options.directory,
  });
  return { env: child.ready.env as S3Env, process: child };
}
