export * from './life.js';
export type { LifeDeps } from './deps.js';
export type { Admission } from './admission.js';
export { cancelledError, type CancelOptions } from './cancel.js';
export type { JobEnd, EndSubscriber } from './ends.js';
export * from './notices.js';
export * from './parts.js';
