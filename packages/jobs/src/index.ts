export * from './meta.js';
export * from './files.js';
export * from './queues.js';
export * from './images/size.js';
export * from './images/input-image.js';
export * from './images/request.js';
export * from './images/job.js';
