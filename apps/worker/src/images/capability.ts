import type { WorkerCapability } from '../capability.js';
import { arkImageAdapter } from '../upstreams/ark/adapter.js';
import { createImageProcessor } from './process-image-job.js';

/** Image generation: Ark's channels, and the processor that stores and charges each delivered image. */
export const imagesWorker: WorkerCapability<'images'> = {
  vendors: { ark: arkImageAdapter },
  processor: (deps) => createImageProcessor({ ...deps, copyLimits: deps.copyLimits('images') }),
};
