export * from './schema.js';
export * from './secret.js';
export * from './keys.js';
export * from './record.js';
export * from './models.js';
export * from './store.js';
export * from './router.js';
export * from './view.js';
