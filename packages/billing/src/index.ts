export * from './billing.js';
export * from './keys.js';
export * from './prices.js';
export * from './ledger.js';
export * from './daily.js';
