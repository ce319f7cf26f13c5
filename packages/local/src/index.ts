export * from './net.js';
export * from './app-process.js';
export * from './redis-server.js';
export * from './embedded-store.js';
export * from './store-process.js';
