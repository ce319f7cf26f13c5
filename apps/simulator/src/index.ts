export { createSimulator, type Simulator } from './app.js';
export { startSimulator, type RunningSimulator } from './server.js';
export { loadSimulatorConfig, simulatorEnvSchema, type SimulatorConfig } from './config.js';
export { faultSchema, type Fault, type FaultInput } from './faults.js';
export { renderImage, type RenderSpec } from './render/encode.js';
export { imageDimensions } from '@relay/core';
export type { SimCall } from './stats.js';
