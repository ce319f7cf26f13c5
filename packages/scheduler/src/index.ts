export * from './scheduler.js';
export * from './estimate.js';
export * from './metrics.js';
export type { Admitted } from './commands.js';
