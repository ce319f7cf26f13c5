import type { Catalog } from '@relay/core';
import { componentSchemas, ref, type SchemaName } from './components.js';

const json = (name: SchemaName) => ({ 'application/json': { schema: ref(name) } });
const ok = (description: string, name: SchemaName) => ({ description, content: json(name) });

const REASONS: Record<number, string> = {
  400: 'A broken rule, named in param / a field violation',
  401: 'Missing, wrong or revoked key',
  402: 'Balance too low for the most the request can cost',
  404: 'Unknown model, job or file',
  409: 'Idempotency-Key reused with another body, or the job was cancelled',
  413: 'Body over the limit',
  415: 'Not application/json',
  429: 'This key is over its rate limit (Retry-After)',
  502: 'The upstream failed after the relay retried',
  503: 'Redis, the store or queue capacity unavailable (Retry-After)',
};
const errors = (name: 'OpenAIError' | 'GoogleError', statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [String(s), { description: REASONS[s]!, content: json(name) }]));

const pending = { description: 'Still running when the wait budget ran out; Location names the job', content: json('JobObject') };
const jobParams = [{ $ref: '#/components/parameters/Prefer' }, { $ref: '#/components/parameters/IdempotencyKey' }];
const GENERATION_ERRORS = [400, 401, 402, 409, 413, 415, 429, 502, 503];
const admin = [{ adminToken: [] }];
const pathId = (name: string) => ({ name, in: 'path', required: true, schema: { type: 'string' } });

function speechOperation(action: string, catalog: Catalog) {
  return {
    tags: ['speech'],
    summary: action === 'generateContent' ? 'Synthesize speech (Gemini-native)' : 'The same, answered as one server-sent event',
    security: [{ googApiKey: [] }, { queryKey: [] }, { relayKey: [] }],
    parameters: [
      { name: 'model', in: 'path', required: true, schema: { type: 'string', enum: Object.keys(catalog.speechModels) } },
      ...(action === 'streamGenerateContent' ? [{ name: 'alt', in: 'query', schema: { type: 'string', enum: ['sse'] } }] : []),
      ...jobParams,
    ],
    requestBody: { required: true, content: json('SpeechRequest') },
    responses: {
      '200': {
        description: 'Gemini GenerateContentResponse; X-Relay-Audio-Url links the stored WAV',
        headers: { 'X-Relay-Audio-Url': { schema: { type: 'string' } } },
        content: action === 'generateContent' ? json('GenerateContentResponse') : { 'text/event-stream': { schema: { type: 'string' } } },
      },
      '202': pending,
      ...errors('GoogleError', [...GENERATION_ERRORS, 404]),
    },
  };
}

/** The OpenAPI 3.1 description of every route; `x-express-route` ties each path to the app's own. */
export function buildOpenApiDocument(catalog: Catalog, version: string) {
  const plain = (summary: string, tag: string, responses: Record<string, unknown>) => ({ get: { tags: [tag], summary, responses } });
  return {
    openapi: '3.1.0',
    info: {
      title: 'relay',
      version,
      description: 'Queue-backed relay for image generation (OpenAI-style) and speech synthesis (Gemini-native).',
    },
    paths: {
      '/v1/images/generations': {
        post: {
          tags: ['images'],
          summary: 'Generate images',
          description: `Per-model rules (checked before anything is queued): ${Object.entries(catalog.imageModels)
            .map(([id, m]) => `${id}: ${m.inputImages.max === 0 ? 'no input image' : `${m.inputImages.min}-${m.inputImages.max} input images`}${m.seed ? ', seed' : ''}${m.guidanceScale !== null ? ', guidance_scale' : ''}${m.sequential ? ', sequential generation' : ''}${m.outputFormat ? ', output_format' : ''}`)
            .join('; ')}.`,
          security: [{ relayKey: [] }],
          parameters: jobParams,
          requestBody: { required: true, content: json('ImageRequest') },
          responses: { '200': ok('The generated images', 'ImagesResponse'), '202': pending, ...errors('OpenAIError', GENERATION_ERRORS) },
        },
      },
      '/v1beta/models/{model}:generateContent': { 'x-express-route': '/v1beta/models/:modelAction', post: speechOperation('generateContent', catalog) },
      '/v1beta/models/{model}:streamGenerateContent': { 'x-express-route': '/v1beta/models/:modelAction', post: speechOperation('streamGenerateContent', catalog) },
      '/v1/jobs/{id}': {
        get: {
          tags: ['jobs'],
          summary: "A job's status; when done, the body the synchronous call returns",
          security: [{ relayKey: [] }, { googApiKey: [] }, { queryKey: [] }],
          parameters: [pathId('id')],
          responses: { '200': { description: 'The finished job, as its endpoint answers' }, '202': ok('Still running', 'JobObject'), ...errors('OpenAIError', [401, 404]) },
        },
      },
      '/files/{fileId}': {
        get: {
          tags: ['files'],
          summary: 'A stored result (image or WAV)',
          parameters: [pathId('fileId')],
          responses: {
            '200': { description: 'The file (FILES_MODE=proxy)', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
            '302': { description: 'To a short-lived presigned URL of the store (FILES_MODE=redirect)' },
            ...errors('OpenAIError', [404, 503]),
          },
        },
      },
      '/healthz': plain('The process answers', 'operations', { '200': { description: 'Up' } }),
      '/readyz': plain('Redis and the store answer', 'operations', { '200': { description: 'Ready' }, '503': { description: 'Not ready' } }),
      '/metrics': plain('Prometheus metrics', 'operations', { '200': { description: 'Text exposition format', content: { 'text/plain': { schema: { type: 'string' } } } } }),
      '/openapi.json': plain('This document', 'operations', { '200': { description: 'OpenAPI 3.1' } }),
      '/docs': plain('This document, rendered', 'operations', { '200': { description: 'HTML', content: { 'text/html': { schema: { type: 'string' } } } } }),
      '/admin/accounts': {
        post: { tags: ['admin'], summary: 'Create an account', security: admin, requestBody: { required: true, content: json('AccountBody') }, responses: { '201': ok('The account', 'Account'), ...errors('OpenAIError', [400, 401]) } },
      },
      '/admin/accounts/{id}': {
        get: { tags: ['admin'], summary: 'Account, balance and keys', security: admin, parameters: [pathId('id')], responses: { '200': ok('The account', 'AccountDetails'), ...errors('OpenAIError', [401, 404]) } },
      },
      '/admin/accounts/{id}/keys': {
        get: { tags: ['admin'], summary: "The account's keys", security: admin, parameters: [pathId('id')], responses: { '200': ok('Keys, never their secrets', 'KeyList'), ...errors('OpenAIError', [401, 404]) } },
        post: { tags: ['admin'], summary: 'Create a key (its secret is shown once)', security: admin, parameters: [pathId('id')], requestBody: { required: true, content: json('KeyBody') }, responses: { '201': ok('The key with its secret', 'NewKey'), ...errors('OpenAIError', [400, 401, 404]) } },
      },
      '/admin/accounts/{id}/credits': {
        post: { tags: ['admin'], summary: 'Credit (or correct) the balance', security: admin, parameters: [pathId('id')], requestBody: { required: true, content: json('CreditBody') }, responses: { '200': ok('The new balance', 'Balance'), ...errors('OpenAIError', [400, 401, 404]) } },
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
            { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } },
            { name: 'cursor', in: 'query', schema: { type: 'string' } },
          ],
          responses: { '200': ok('A page of entries', 'LedgerPage'), ...errors('OpenAIError', [400, 401, 404]) },
        },
      },
      '/admin/keys/{id}': {
        delete: { tags: ['admin'], summary: 'Revoke a key', security: admin, parameters: [pathId('id')], responses: { '200': ok('The revoked key', 'KeyRecord'), ...errors('OpenAIError', [401, 404]) } },
      },
      '/admin/queues': plain('The BullMQ dashboard (bull-board)', 'admin', { '200': { description: 'HTML' }, '401': { description: 'Admin token required' } }),
    },
    components: {
      schemas: componentSchemas(catalog),
      parameters: {
        Prefer: { name: 'Prefer', in: 'header', description: '`wait=N` (seconds) or `respond-async`', schema: { type: 'string' } },
        IdempotencyKey: { name: 'Idempotency-Key', in: 'header', description: 'Same key + same body = same job, charged once', schema: { type: 'string', maxLength: 255 } },
      },
      securitySchemes: {
        relayKey: { type: 'http', scheme: 'bearer', description: 'A relay API key' },
        googApiKey: { type: 'apiKey', in: 'header', name: 'x-goog-api-key' },
        queryKey: { type: 'apiKey', in: 'query', name: 'key' },
        adminToken: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN' },
      },
    },
  };
}

export type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;
