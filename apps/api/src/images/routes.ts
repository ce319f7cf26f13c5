import express from 'express';
import type { Job } from 'bullmq';
import type { BlobStore, Catalog } from '@relay/core';
import {
  imageJobResultSchema,
  imageRequestSchema,
  newJobId,
  type ImageJob,
} from '@relay/jobs';
import { authenticate, OPENAI_KEYS } from '../auth/authenticate.js';
import type { AccountsStore } from '../auth/accounts.js';
import type { ApiConfig } from '../config.js';
import { jsonBody } from '../http/json-body.js';
import { parseOrThrow } from '../http/validate.js';
import { answer, type Presenter } from '../jobs/answer.js';
import type { Queues } from '../jobs/queues.js';
import { addAndWait } from '../jobs/run-job.js';
import { presentImages } from './present.js';
import { stageInputImages } from './stage-inputs.js';

export interface ImagesDeps {
  config: ApiConfig;
  catalog: Catalog;
  accounts: AccountsStore;
  queues: Queues;
  store: BlobStore;
  publicBase: (req: express.Request) => string;
}

export function imagePresenter(store: BlobStore, base: string): Presenter<unknown> {
  return async (job: Job, result: unknown) => ({
    body: await presentImages(imageJobResultSchema.parse(result), (job.data as ImageJob).request, store, base),
  });
}

export function imagesRoutes(deps: ImagesDeps) {
  const schema = imageRequestSchema(deps.catalog.imageModels);
  const router = express.Router();
  router.post(
    '/v1/images/generations',
    authenticate(deps.accounts, OPENAI_KEYS),
    jsonBody(deps.config.BODY_LIMIT_BYTES),
    async (req: express.Request, res: express.Response) => {
      const request = parseOrThrow(schema, req.body);
      const caller = res.locals.caller!;
      const jobId = newJobId('img');
      const image = await stageInputImages(deps.store, jobId, request.image, deps.config.INPUT_IMAGE_MAX_BYTES);
      const payload: ImageJob = {
        meta: { requestId: res.locals.requestId, accountId: caller.accountId, keyId: caller.keyId, createdAt: Date.now() },
        request: { ...request, image },
      };
      const outcome = await addAndWait<ImageJob, unknown>(
        deps.queues.images,
        'generate',
        jobId,
        payload,
        deps.config.WAIT_TIMEOUT_MS,
      );
      await answer(res, outcome, imagePresenter(deps.store, deps.publicBase(req)), 'openai');
    },
  );
  return router;
}
