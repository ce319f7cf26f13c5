export { createWorkers, type Processors } from './workers.js';
export { createImageProcessor } from './images/process-image-job.js';
export { createArkImages } from './upstreams/ark/images.js';
export { upstreamSize } from './images/upstream-size.js';
export { loadWorkerConfig, workerEnvSchema, type WorkerConfig } from './config.js';
export { sweepPrefix } from './retention.js';
