import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Router } from 'express';
import type { Queues } from '../jobs/queues.js';

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
  return serverAdapter.getRouter() as Router;
}
