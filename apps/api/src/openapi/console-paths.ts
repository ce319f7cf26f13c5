import { admin, errors, ok, pathId } from './parts.js';

const html = { 'text/html': { schema: { type: 'string' } } };
const days = {
  name: 'days',
  in: 'query',
  description: 'How many days back, today (UTC) included',
  schema: { type: 'integer', minimum: 1, maximum: 90, default: 30 },
};

/** GET /admin/accounts (POST, creating one, is in document.ts). */
export const accountListOperation = {
  tags: ['admin'],
  summary: 'Accounts, newest first, or those matching a search',
  description: 'Read from an index kept when accounts are created: no scan of Redis.',
  security: admin,
  parameters: [
    {
      name: 'q',
      in: 'query',
      description: 'Words that start words of the name, or the start of the id',
      schema: { type: 'string', maxLength: 200 },
    },
    { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 25 } },
    { name: 'cursor', in: 'query', schema: { type: 'string' } },
  ],
  responses: { '200': ok("A page of accounts with balances and this month's spend", 'AccountList'), ...errors('OpenAIError', [400, 401]) },
};

/** The console's pages and the admin routes behind its lists and charts. */
export function consolePaths() {
  return {
    '/console/config': {
      get: {
        tags: ['console'],
        summary: 'Whether the admin API is enabled (no authentication; nothing secret)',
        responses: { '200': ok('Console settings', 'ConsoleConfig') },
      },
    },
    '/console': {
      get: {
        tags: ['console'],
        summary: 'The operator console (a single-page app; sign in with the admin token)',
        responses: { '200': { description: 'HTML', content: html }, '503': { description: 'The console is not built' } },
      },
    },
    '/console/{path}': {
      'x-express-route': '/console/*path',
      get: {
        tags: ['console'],
        summary: "The console's pages (the app routes in the browser); /console/assets/* are its files",
        parameters: [{ name: 'path', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'HTML', content: html } },
      },
    },
    '/admin/accounts/{id}/usage/daily': {
      get: {
        tags: ['admin'],
        summary: "The account's spend, units and jobs per day and model",
        security: admin,
        parameters: [pathId('id'), days],
        responses: { '200': ok('Daily aggregates', 'DailyUsage'), ...errors('OpenAIError', [400, 401, 404]) },
      },
    },
    '/admin/usage/daily': {
      get: {
        tags: ['admin'],
        summary: "The relay's spend, units and jobs per day and model",
        security: admin,
        parameters: [days],
        responses: { '200': ok('Daily aggregates', 'DailyUsage'), ...errors('OpenAIError', [400, 401]) },
      },
    },
    '/admin/stats/traffic': {
      get: {
        tags: ['admin'],
        summary: 'Requests, errors and latency per minute (every api process, from Redis)',
        security: admin,
        parameters: [{ name: 'hours', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 24, default: 3 } }],
        responses: { '200': ok('Per-minute traffic', 'Traffic'), ...errors('OpenAIError', [400, 401]) },
      },
    },
    '/admin/stats/queues': {
      get: {
        tags: ['admin'],
        summary: 'Jobs per queue and state, and the latest failures',
        security: admin,
        responses: { '200': ok('Queue counts', 'QueueStats'), ...errors('OpenAIError', [401]) },
      },
    },
    '/admin/catalog': {
      get: {
        tags: ['admin'],
        summary: 'The models, prices and voices the relay serves',
        security: admin,
        responses: { '200': ok('The catalog', 'AdminCatalog'), ...errors('OpenAIError', [401]) },
      },
    },
    '/admin/demo-key': {
      get: {
        tags: ['admin'],
        summary: "The demo account's key npm start made, for the console playground (null on any other relay)",
        security: admin,
        responses: { '200': ok('The demo key, or null', 'DemoKey'), ...errors('OpenAIError', [401]) },
      },
    },
  };
}
