import { announceReady, createLogger, loadCatalog, onShutdown, runMain, startTracing } from '@relay/core';
import { loadApiConfig } from './config.js';
import { startApi } from './server.js';

await runMain(async () => {
  const config = loadApiConfig();
  const log = createLogger('api', config.LOG_LEVEL);
  const tracing = startTracing('api');
  const api = await startApi(config, loadCatalog(), log);
  announceReady({ url: api.url });
  onShutdown(async () => {
    log.info('shutting down: no new requests');
    await api.close();
    await tracing.shutdown();
  });
});
