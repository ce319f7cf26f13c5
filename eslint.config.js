// The rules live in tools/lint, beside the TypeScript 6 that typescript-eslint needs.
export { default } from './tools/lint/eslint.config.js';
