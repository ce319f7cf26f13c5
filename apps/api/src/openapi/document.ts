import type { Catalog } from '@relay/core';
import { errorResponses, type Doors } from '@relay/jobs';
import { createDocument, type ZodOpenApiPathsObject } from 'zod-openapi';
import { adminBatchPaths } from '../admin/batch-routes.js';
import { channelPaths } from '../admin/channel-routes.js';
import { consoleAdminPaths } from '../admin/console-routes.js';
import { dashboardPaths } from '../admin/dashboard.js';
import { adminPaths } from '../admin/routes.js';
import { schedulePaths } from '../admin/schedule-routes.js';
import { webhookPaths } from '../admin/webhook-routes.js';
import { batchFilePaths } from '../batch-files/routes.js';
import { batchPaths } from '../batches/routes.js';
import { consolePaths } from '../console/routes.js';
import { filePaths } from '../files/routes.js';
import { geminiPaths } from '../gemini/routes.js';
import { opsPaths } from '../health.js';
import { jobPaths } from '../jobs/routes.js';
import { modelPaths } from '../models/routes.js';
import { mergePaths } from './merge-paths.js';
import { openApiPaths } from './routes.js';

/**
 * What the admin area answers on every route besides the route's own answers, as the app mounts
 * it (admin/admin-auth.ts): 429 once the client's address made too many failed authentications,
 * and, on a request that changes state, 415 for a body that is not JSON.
 */
export function withAdminRefusals(paths: ZodOpenApiPathsObject): ZodOpenApiPathsObject {
  const limited = { ...errorResponses('openai', [429])['429'], description: 'Too many wrong admin tokens from this address (Retry-After)' };
  const notJson = errorResponses('openai', [415])['415'];
  return Object.fromEntries(
    Object.entries(paths).map(([path, item]) => {
      if (!path.startsWith('/admin/') || !item) return [path, item];
      const refusing = Object.fromEntries(
        (['get', 'put', 'post', 'delete', 'patch'] as const)
          .filter((method) => item[method])
          .map((method) => {
            const operation = item[method]!;
            const changes = method !== 'get';
            const responses = {
              ...operation.responses,
              '429': limited,
              ...(changes ? { '415': operation.responses?.['415'] ?? notJson } : {}),
            };
            return [
              method,
              { ...operation, responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b))) },
            ];
          }),
      );
      return [path, { ...item, ...refusing }];
    }),
  );
}

/**
 * The OpenAPI 3.1 description of every route, each described beside its router from the zod
 * schemas it parses and answers with; the doors describe themselves. zod-openapi renders it, a
 * schema with `.meta({ id })` as a component. `x-express-route` ties a path to the app's own
 * where the two differ.
 */
export function buildOpenApiDocument(catalog: Catalog, doors: Doors, version: string) {
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'relay',
      version,
      description: 'Queue-backed relay for image generation and speech synthesis, in OpenAI and Gemini dialects.',
    },
    paths: withAdminRefusals(
      mergePaths([
        ...doors.all.map((door) => door.openapi()),
        geminiPaths(catalog),
        modelPaths,
        batchFilePaths,
        batchPaths(doors),
        jobPaths(doors),
        filePaths,
        opsPaths,
        openApiPaths,
        consolePaths,
        adminPaths,
        consoleAdminPaths,
        schedulePaths,
        webhookPaths,
        channelPaths,
        adminBatchPaths,
        dashboardPaths,
      ]),
    ),
    components: {
      securitySchemes: {
        relayKey: { type: 'http', scheme: 'bearer', description: 'A relay API key' },
        googApiKey: { type: 'apiKey', in: 'header', name: 'x-goog-api-key' },
        queryKey: { type: 'apiKey', in: 'query', name: 'key' },
        adminToken: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN' },
      },
    },
  });
}
