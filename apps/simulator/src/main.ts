import { announceReady, createLogger, onShutdown, runMain } from '@relay/core';
import { loadSimulatorConfig } from './config.js';
import { startSimulator } from './server.js';

await runMain(async () => {
  const config = loadSimulatorConfig();
  const log = createLogger('simulator', config.LOG_LEVEL);
  const sim = await startSimulator(config);
  log.info({ url: sim.url }, 'upstream simulator listening (Ark images at /api/v3, Gemini at /v1beta)');
  announceReady({ url: sim.url });
  onShutdown(() => sim.close());
});
