import { announceReady, onShutdown, runMain } from '@relay/core';
import { startEmbeddedStore } from './embedded-store.js';

/**
 * The embedded store as a process of its own (spawnStore), so that a benchmark's store does not
 * share the load generator's CPU. It announces its S3_* variables, keys included, over IPC.
 */
await runMain(async () => {
  const store = await startEmbeddedStore({
    bucket: process.env.STORE_BUCKET || 'relay',
    port: Number(process.env.STORE_PORT || 0) || undefined,
    directory: process.env.STORE_DIR || undefined,
  });
  onShutdown(() => store.close());
  announceReady({ url: store.env.S3_ENDPOINT, env: store.env });
});
