import express from 'express';
import type { Job } from 'bullmq';
import { ownValue, parseOrThrow, parseUrlPolicy, type BlobStore } from '@relay/core';
import {
  checkInputImages,
  imageHold,
  imageJobResultSchema,
  imageRequestSchema,
  maxImageEntryChars,
  presentImages,
  stageInputImages,
  type ImageJob,
} from '@relay/jobs';
import { authenticate, OPENAI_KEYS } from '../auth/authenticate.js';
import { jsonBody } from '../http/json-body.js';
import type { Presenter } from '../jobs/answer.js';
import { handleJobRequest, type EndpointDeps } from '../jobs/handle-job-request.js';
import { fingerprint } from '../jobs/idempotency.js';

export function imagePresenter(store: BlobStore, base: string): Presenter<unknown> {
  return async (job: Job, result: unknown) => ({
    body: await presentImages(imageJobResultSchema.parse(result), (job.data as ImageJob).request, base, store),
  });
}

export function imagesRoutes(deps: EndpointDeps) {
  const schema = imageRequestSchema(deps.catalog.imageModels);
  const inputLimits = { maxBytes: deps.config.INPUT_IMAGE_MAX_BYTES, urls: parseUrlPolicy(deps.config.URL_ALLOWLIST) };
  const router = express.Router();
  router.post(
    '/v1/images/generations',
    authenticate(deps.accounts, OPENAI_KEYS),
    deps.limits.requests,
    jsonBody(deps.config.BODY_LIMIT_BYTES, maxImageEntryChars(deps.config.INPUT_IMAGE_MAX_BYTES)),
    async (req: express.Request, res: express.Response) => {
      const request = parseOrThrow(schema, req.body);
      const inputs = await checkInputImages(request.image, inputLimits);
      const caller = res.locals.caller!;
      await handleJobRequest(req, res, deps.jobs, deps.route, {
        ...imageHold(ownValue(deps.catalog.imageModels, request.model)!, request),
        fingerprint: () => fingerprint(req.path, request),
        prepare: async (jobId): Promise<ImageJob> => ({
          meta: { requestId: res.locals.requestId, accountId: caller.accountId, keyId: caller.keyId, createdAt: Date.now() },
          request: { ...request, image: await stageInputImages(deps.store, jobId, inputs) },
        }),
        present: imagePresenter(deps.store, deps.publicBase(req)),
      });
    },
  );
  return router;
}
