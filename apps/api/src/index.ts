export { createApp, type ApiDeps } from './app.js';
export { startApi, type RunningApi } from './server.js';
export { apiEnvSchema, loadApiConfig, type ApiConfig } from './config.js';
export { createAccountsStore, type AccountsStore } from './auth/accounts.js';
export { openQueues, closeQueues, type Queues } from './jobs/queues.js';
export { ADMIN_COMMANDS, type AdminCommand } from './admin/cli-commands.js';
export { buildOpenApiDocument } from './openapi/document.js';
