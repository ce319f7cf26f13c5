import { createLogger } from '@relay/core';
import { loadSimulatorConfig } from './config.js';
import { startSimulator } from './server.js';

const config = loadSimulatorConfig();
const log = createLogger('simulator', config.LOG_LEVEL);
const sim = await startSimulator(config);
log.info({ url: sim.url }, 'upstream simulator listening (Ark images at /api/v3, Gemini at /v1beta)');

const stop = () => void sim.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
