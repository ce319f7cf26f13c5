export * from './life.js';
export type { LifeDeps } from './deps.js';
export type { Admission } from './admission.js';
export {
  cancelledByError,
  cancelledError,
  cancelledKey,
  isCancelled,
  stoppedError,
  readCancelled,
  type CancelledJob,
  type CancelOptions,
  type CancelReason,
} from './cancel.js';
export type { JobEnd, EndSubscriber } from './ends.js';
export * from './notices.js';
export * from './parts.js';
