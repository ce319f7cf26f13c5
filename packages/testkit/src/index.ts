export * from './net.js';
export * from './docker.js';
export * from './redis.js';
export * from './sentinel.js';
export * from './s3.js';
export * from './processes.js';
export * from './run-cli.js';
