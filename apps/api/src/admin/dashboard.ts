import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Express, Router } from 'express';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { errorResponses } from '@relay/jobs';
import type { Queues } from '../jobs/queues.js';
import { ADMIN_SECURITY, textAnswer } from '../openapi/parts.js';

export const DASHBOARD_PATH = '/admin/queues';

/** bull-board over every queue; mounted behind the admin token by the app. */
export function dashboardRouter(queues: Queues) {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(DASHBOARD_PATH);
  createBullBoard({
    queues: Object.values(queues).map(({ queue }) => new BullMQAdapter(queue)),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'relay queues' } },
  });
  const router = serverAdapter.getRouter() as Express;
  // bull-board's own Express app: it would name itself in X-Powered-By
  router.disable('x-powered-by');
  return router as Router;
}

/** The dashboard's page (its own API and assets under the same path are bull-board's, not the relay's). */
export const dashboardPaths: ZodOpenApiPathsObject = {
  [DASHBOARD_PATH]: {
    get: {
      tags: ['admin'],
      summary:
        'The BullMQ dashboard (bull-board); a browser is asked for the admin token as a Basic password, which opens its pages and ' +
        'reads only: its actions take the token as Authorization: Bearer or X-Admin-Token',
      security: ADMIN_SECURITY,
      responses: { '200': textAnswer('HTML', 'text/html'), ...errorResponses('openai', [401]) },
    },
  },
};
