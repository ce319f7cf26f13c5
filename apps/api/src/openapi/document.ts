import type { Catalog } from '@relay/core';
import type { Doors } from '@relay/jobs';
import { createDocument, type ZodOpenApiPathsObject } from 'zod-openapi';
import { componentSchemas } from './components.js';
import { accountListOperation, consolePaths } from './console-paths.js';
import { geminiPaths } from './gemini-paths.js';
import { modelPaths } from './model-paths.js';
import { batchFilePaths } from './batch-file-paths.js';
import { batchPaths } from './batch-paths.js';
import { admin, errors, json, ok, pathId } from './parts.js';

/**
 * The OpenAPI 3.1 description of every route; `x-express-route` ties each path to the app's own.
 * The doors describe themselves from the schemas they parse with; zod-openapi renders them.
 */
export function buildOpenApiDocument(catalog: Catalog, doors: Doors, version: string) {
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'relay',
      version,
      description: 'Queue-backed relay for image generation (OpenAI-style) and speech synthesis (Gemini-native).',
    },
    paths: {
      ...doors.all.reduce<ZodOpenApiPathsObject>((paths, door) => ({ ...paths, ...door.openapi() }), {}),
      // written as plain OpenAPI: typed as such when each moves next to its router
      ...(routePaths(catalog) as unknown as ZodOpenApiPathsObject),
    },
    components: {
      schemas: componentSchemas(),
      parameters: {
        Prefer: { name: 'Prefer', in: 'header', description: '`wait=N` (seconds) or `respond-async`', schema: { type: 'string' } },
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          description: 'Same key + same body = same job, charged once',
          schema: { type: 'string', maxLength: 255 },
        },
      },
      securitySchemes: {
        relayKey: { type: 'http', scheme: 'bearer', description: 'A relay API key' },
        googApiKey: { type: 'apiKey', in: 'header', name: 'x-goog-api-key' },
        queryKey: { type: 'apiKey', in: 'query', name: 'key' },
        adminToken: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN' },
      },
    },
  });
}

/** Every other route's path items, written as plain OpenAPI. */
function routePaths(catalog: Catalog) {
  const plain = (summary: string, tag: string, responses: Record<string, unknown>) => ({ get: { tags: [tag], summary, responses } });
  return {
    ...geminiPaths(catalog),
    ...modelPaths(),
    ...batchFilePaths(),
    ...batchPaths(),
    '/v1/jobs/{id}': {
      get: {
        tags: ['jobs'],
        summary: "A job's status; when done, the body the synchronous call returns",
        security: [{ relayKey: [] }, { googApiKey: [] }, { queryKey: [] }],
        parameters: [pathId('id')],
        responses: {
          '200': { description: 'The finished job, as its endpoint answers' },
          '202': ok('Still running', 'JobObject'),
          ...errors('OpenAIError', [401, 404]),
        },
      },
    },
    '/files/{fileId}': {
      get: {
        tags: ['files'],
        summary: 'A stored result (image or WAV)',
        parameters: [pathId('fileId')],
        responses: {
          '200': {
            description: 'The file (FILES_MODE=proxy)',
            content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
          },
          '302': { description: 'To a short-lived presigned URL of the store (FILES_MODE=redirect)' },
          ...errors('OpenAIError', [404, 503]),
        },
      },
    },
    '/healthz': plain('The process answers', 'operations', { '200': { description: 'Up' } }),
    '/readyz': plain('Redis and the store answer', 'operations', {
      '200': { description: 'Ready' },
      '503': { description: 'Not ready' },
    }),
    '/metrics': plain('Prometheus metrics', 'operations', {
      '200': { description: 'Text exposition format', content: { 'text/plain': { schema: { type: 'string' } } } },
    }),
    '/openapi.json': plain('This document', 'operations', { '200': { description: 'OpenAPI 3.1' } }),
    '/docs': plain('This document, rendered as a readable reference (Swagger UI, served by the relay)', 'operations', {
      '200': { description: 'HTML', content: { 'text/html': { schema: { type: 'string' } } } },
    }),
    ...consolePaths(),
    '/admin/accounts': {
      get: accountListOperation,
      post: {
        tags: ['admin'],
        summary: 'Create an account',
        security: admin,
        requestBody: { required: true, content: json('AccountBody') },
        responses: { '201': ok('The account', 'Account'), ...errors('OpenAIError', [400, 401]) },
      },
    },
    '/admin/accounts/{id}': {
      get: {
        tags: ['admin'],
        summary: 'Account, balance and keys',
        security: admin,
        parameters: [pathId('id')],
        responses: { '200': ok('The account', 'AccountDetails'), ...errors('OpenAIError', [401, 404]) },
      },
      patch: {
        tags: ['admin'],
        summary: "The account's place in the fair schedule: weight, cap on jobs in flight",
        security: admin,
        parameters: [pathId('id')],
        requestBody: { required: true, content: json('AccountScheduleBody') },
        responses: { '200': ok('The account', 'Account'), ...errors('OpenAIError', [400, 401, 404]) },
      },
    },
    '/admin/schedule': {
      get: {
        tags: ['admin'],
        summary: 'Pending work per queue, lane and account; dispatched work per account',
        security: admin,
        responses: { '200': ok('The schedule', 'ScheduleStats'), ...errors('OpenAIError', [401]) },
      },
    },
    '/admin/accounts/{id}/keys': {
      get: {
        tags: ['admin'],
        summary: "The account's keys",
        security: admin,
        parameters: [pathId('id')],
        responses: { '200': ok('Keys, never their secrets', 'KeyList'), ...errors('OpenAIError', [401, 404]) },
      },
      post: {
        tags: ['admin'],
        summary: 'Create a key (its secret is shown once)',
        security: admin,
        parameters: [pathId('id')],
        requestBody: { required: true, content: json('KeyBody') },
        responses: { '201': ok('The key with its secret', 'NewKey'), ...errors('OpenAIError', [400, 401, 404]) },
      },
    },
    '/admin/accounts/{id}/credits': {
      post: {
        tags: ['admin'],
        summary: 'Credit (or correct) the balance',
        description:
          'Every amount of the admin API is an integer of micro-units: 1,000,000 micro-units are one unit of the account currency. ' +
          'The admin CLI (`npm run admin -- credits add <account> 50`) and the console take units and send micro-units.',
        security: admin,
        parameters: [pathId('id')],
        requestBody: { required: true, content: json('CreditBody') },
        responses: { '200': ok('The new balance', 'Balance'), ...errors('OpenAIError', [400, 401, 404]) },
      },
    },
    '/admin/accounts/{id}/usage': {
      get: {
        tags: ['admin'],
        summary: 'The ledger, newest first',
        security: admin,
        parameters: [
          pathId('id'),
          ...['from', 'to'].map((name) => ({ name, in: 'query', description: 'ISO time or epoch ms', schema: { type: 'string' } })),
          { name: 'model', in: 'query', schema: { type: 'string' } },
          {
            name: 'user',
            in: 'query',
            description: "The end user a request named (OpenAI's user)",
            schema: { type: 'string', maxLength: 256 },
          },
          {
            name: 'key',
            in: 'query',
            description: 'Only the entries of jobs made with this key (its id)',
            schema: { type: 'string', maxLength: 64 },
          },
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } },
          { name: 'cursor', in: 'query', schema: { type: 'string' } },
        ],
        responses: { '200': ok('A page of entries', 'LedgerPage'), ...errors('OpenAIError', [400, 401, 404]) },
      },
    },
    '/admin/keys/{id}': {
      delete: {
        tags: ['admin'],
        summary: 'Revoke a key',
        security: admin,
        parameters: [pathId('id')],
        responses: { '200': ok('The revoked key', 'KeyRecord'), ...errors('OpenAIError', [401, 404]) },
      },
    },
    '/admin/accounts/{id}/webhooks': {
      get: {
        tags: ['admin'],
        summary: "The account's webhook endpoints",
        security: admin,
        parameters: [pathId('id')],
        responses: { '200': ok('Endpoints, never their secrets', 'WebhookList'), ...errors('OpenAIError', [401, 404]) },
      },
      post: {
        tags: ['admin'],
        summary: 'Add a webhook endpoint (its signing secret is shown once)',
        description:
          'Async jobs (Prefer: respond-async) announce job.completed and job.failed; messages are signed as Standard Webhooks says.',
        security: admin,
        parameters: [pathId('id')],
        requestBody: { required: true, content: json('WebhookBody') },
        responses: { '201': ok('The endpoint with its secret', 'NewWebhook'), ...errors('OpenAIError', [400, 401, 404]) },
      },
    },
    '/admin/webhooks/{id}': {
      delete: {
        tags: ['admin'],
        summary: 'Remove a webhook endpoint',
        security: admin,
        parameters: [pathId('id')],
        responses: { '200': ok('The removed endpoint', 'WebhookEndpoint'), ...errors('OpenAIError', [401, 404]) },
      },
    },
    '/admin/webhooks/{id}/deliveries': {
      get: {
        tags: ['admin'],
        summary: "An endpoint's latest delivery attempts, newest first",
        security: admin,
        parameters: [pathId('id')],
        responses: { '200': ok('Attempts', 'WebhookDeliveries'), ...errors('OpenAIError', [401, 404]) },
      },
    },
    '/admin/channels': {
      get: {
        tags: ['admin'],
        summary: 'Upstream channels: breaker state, calls in flight, recent failures, latency (never a key)',
        security: admin,
        responses: { '200': ok('The channels', 'ChannelList'), ...errors('OpenAIError', [401]) },
      },
      post: {
        tags: ['admin'],
        summary: 'Add an upstream channel (its key is kept encrypted with CHANNEL_SECRET); every worker uses it within CHANNEL_REFRESH_MS',
        security: admin,
        requestBody: { required: true, content: json('ChannelBody') },
        responses: { '201': ok('The channel', 'Channel'), ...errors('OpenAIError', [400, 401, 409]) },
      },
    },
    '/admin/channels/{id}': {
      get: {
        tags: ['admin'],
        summary: 'One channel',
        security: admin,
        parameters: [pathId('id')],
        responses: { '200': ok('The channel', 'Channel'), ...errors('OpenAIError', [401, 404]) },
      },
      patch: {
        tags: ['admin'],
        summary: 'Change a channel: weight, tier, capacity, models, key, or take it out of service (disabled)',
        security: admin,
        parameters: [pathId('id')],
        requestBody: { required: true, content: json('ChannelPatch') },
        responses: { '200': ok('The channel', 'Channel'), ...errors('OpenAIError', [400, 401, 404]) },
      },
      delete: {
        tags: ['admin'],
        summary: 'Remove a channel added through this API (config channels can only be disabled)',
        security: admin,
        parameters: [pathId('id')],
        responses: { '200': ok('The removed channel', 'Channel'), ...errors('OpenAIError', [401, 404, 409]) },
      },
    },
    '/admin/batches': {
      get: {
        tags: ['admin'],
        summary: "Every account's batches (or one account's), newest first, with their progress",
        security: admin,
        parameters: [
          { name: 'account', in: 'query', schema: { type: 'string', maxLength: 64 } },
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
          { name: 'cursor', in: 'query', schema: { type: 'string' } },
        ],
        responses: { '200': ok('A page of batches', 'AdminBatchList'), ...errors('OpenAIError', [400, 401]) },
      },
    },
    '/admin/batches/{id}': {
      get: {
        tags: ['admin'],
        summary: 'One batch, of any account',
        security: admin,
        parameters: [pathId('id')],
        responses: { '200': ok('The batch', 'AdminBatch'), ...errors('OpenAIError', [401, 404]) },
      },
    },
    '/admin/batches/{id}/cancel': {
      post: {
        tags: ['admin'],
        summary: 'Cancel a batch: nothing more starts, lines in flight finish',
        security: admin,
        parameters: [pathId('id')],
        responses: { '200': ok('The batch, cancelling', 'AdminBatch'), ...errors('OpenAIError', [401, 404, 409]) },
      },
    },
    '/admin/batches/{id}/files/{which}': {
      get: {
        tags: ['admin'],
        summary: "A batch's output or error file (JSONL)",
        security: admin,
        parameters: [pathId('id'), { name: 'which', in: 'path', required: true, schema: { type: 'string', enum: ['output', 'error'] } }],
        responses: {
          '200': { description: 'The file', content: { 'application/jsonl': { schema: { type: 'string' } } } },
          ...errors('OpenAIError', [401, 404, 503]),
        },
      },
    },
    '/admin/batches/{id}/archive': {
      get: {
        tags: ['admin'],
        summary: 'A ZIP of every file an ended batch made, with manifest.json',
        security: admin,
        parameters: [pathId('id')],
        responses: {
          '200': {
            description: 'The archive, streamed',
            content: { 'application/zip': { schema: { type: 'string', format: 'binary' } } },
          },
          ...errors('OpenAIError', [401, 404, 409]),
        },
      },
    },
    '/admin/queues': plain('The BullMQ dashboard (bull-board)', 'admin', {
      '200': { description: 'HTML' },
      '401': { description: 'Admin token required' },
    }),
  };
}
