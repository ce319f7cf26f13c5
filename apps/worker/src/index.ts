export { createWorkers, type Processors } from './workers.js';
export { createImageProcessor } from './images/process-image-job.js';
export { loadWorkerConfig, workerEnvSchema, type WorkerConfig } from './config.js';
export { sweepPrefix } from './retention.js';
export { arkRequestOf } from './upstreams/ark/request.js';
