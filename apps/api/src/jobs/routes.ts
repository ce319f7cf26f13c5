import express, { type Request, type RequestHandler } from 'express';
import { z } from 'zod';
import type { ZodOpenApiContentObject, ZodOpenApiPathsObject } from 'zod-openapi';
import { parseOrThrow, type BlobStore } from '@relay/core';
import type { Redis } from 'ioredis';
import { errorResponses, jobObjectSchema, type Doors } from '@relay/jobs';
import { authenticate, type KeySource } from '../auth/authenticate.js';
import type { AccountsStore } from '../auth/accounts.js';
import { ANY_KEY_SECURITY, jsonAnswer } from '../openapi/parts.js';
import { answer } from './answer.js';
import type { AnswerCache } from './answer-cache.js';
import type { Queues } from './queues.js';
import { ownedJob } from './job-lookup.js';
import { webhookSecretSchema } from '../admin/webhook-routes.js';
import { sendError } from '../http/dialects.js';

const jobPath = z.object({ id: z.string().describe('The id a 202 named (Location, id)') });

export interface JobsRouteDeps {
  accounts: AccountsStore;
  keys: { sources: KeySource[]; hint: string };
  /** Reads have a rate-limit bucket of their own, larger than the generation limit. */
  readLimit: RequestHandler;
  cache: AnswerCache;
  queues: Queues;
  doors: Doors;
  store: BlobStore;
  publicBase: (req: Request) => string;
  /** Where a cancelled job's end is kept (REDIS_PREFIX). */
  redis: Redis;
  prefix: string;
}

/**
 * GET /v1/jobs/{id}: the job's status, and once done exactly the body the synchronous call
 * would have returned, in the dialect of the door the job came in by. Jobs of other accounts
 * are indistinguishable from missing ones.
 */
export function jobsRoutes(deps: JobsRouteDeps) {
  const { accounts, keys, readLimit, cache, store, publicBase } = deps;
  const router = express.Router();
  router.get('/v1/jobs/:id', authenticate(accounts, keys), readLimit, async (req, res) => {
    const { id } = parseOrThrow(jobPath, req.params);
    const accountId = res.locals.caller!.accountId;
    const { handle, door, outcome } = await ownedJob(id, accountId, deps);
    res.locals.dialect = door.dialect;
    if (outcome.state === 'cancelled') return void sendError(res, outcome.error, door.dialect);
    const base = publicBase(req);
    const present = cache.presenter(`${id} ${base}`, accountId, (job, result) =>
      door.present(job.data, result, { publicBase: base, store }),
    );
    await answer(res, handle, outcome, present, door.dialect, store);
  });
  return router;
}

/**
 * What a finished job answers: the success answer of the doors' synchronous calls, per media
 * type (a read is never a stream: the events of a streamed call are not among them).
 */
function finishedContent(doors: Doors): ZodOpenApiContentObject {
  const byType = new Map<string, Set<z.core.$ZodType>>();
  for (const door of doors.all) {
    const paths = door.openapi();
    for (const path of Object.keys(paths)) {
      const answer = paths[path]?.post?.responses['200'];
      const content = answer && !('$ref' in answer) ? (answer.content ?? {}) : {};
      for (const type of Object.keys(content)) {
        const schema = content[type]?.schema;
        if (type === 'text/event-stream' || !(schema instanceof z.core.$ZodType)) continue;
        byType.set(type, (byType.get(type) ?? new Set()).add(schema));
      }
    }
  }
  return Object.fromEntries(
    [...byType].map(([type, schemas]) => [type, { schema: schemas.size === 1 ? [...schemas][0]! : z.union([...schemas]) }]),
  );
}

export function jobPaths(doors: Doors): ZodOpenApiPathsObject {
  return {
    '/v1/jobs/{id}': {
      get: {
        tags: ['jobs'],
        summary: "A job's status; when done, the body the synchronous call returns",
        description: 'Answered in the dialect of the call that made the job: a failed job answers the error that call would have.',
        security: ANY_KEY_SECURITY,
        requestParams: { path: jobPath },
        responses: {
          '200': { description: 'The finished job, as its endpoint answers', content: finishedContent(doors) },
          '202': jsonAnswer('Still running', jobObjectSchema),
          ...errorResponses('openai', [401, 404, 409, 429]),
        },
      },
    },
    '/v1/jobs/{id}/cancel': {
      post: {
        tags: ['jobs'],
        summary: 'Cancel a job: all of it before it begins, what has not begun while it runs',
        description:
          'A job that has not begun: the whole reservation is released and the job ends `cancelled` (its waiting caller, events and later looks say so); 200. A job whose upstream call began: no further call begins (a retry, a generation not yet asked, a wait for a cooling channel ends now); what is in flight ends and is charged as delivered; 202 with `cancel_requested`. A job that delivered nothing ends `cancelled`, uncharged. A finished job: 409.',
        security: ANY_KEY_SECURITY,
        requestParams: { path: jobPath },
        responses: {
          '200': jsonAnswer('Cancelled (again, for a job cancelled already)', jobObjectSchema),
          '202': jsonAnswer('Running: stopping (`status: running`, `cancel_requested: true`)', jobObjectSchema),
          ...errorResponses('openai', [401, 404, 409, 429]),
        },
      },
    },
    '/v1/webhooks/secret': {
      get: {
        tags: ['jobs'],
        summary: "The secret that signs the webhooks this account's requests name (Relay-Webhook)",
        description:
          'Standard Webhooks: verify webhook-id, webhook-timestamp and webhook-signature with it. Stable until the operator rotates it (POST /admin/accounts/{id}/request-webhook-secret).',
        security: ANY_KEY_SECURITY,
        responses: { '200': jsonAnswer('The secret', webhookSecretSchema), ...errorResponses('openai', [401, 429]) },
      },
    },
    '/v1/jobs/{id}/events': {
      get: {
        tags: ['jobs'],
        summary: "A job's events as they happen",
        description:
          'Server-sent events, each `{type, job, ...}`: `queued` or `started`, then `image` (`index`, `file_id`) per stored image and `audio` per piece of a clip as it is made (`seq`) or the stored clip (`file_id`), then exactly one of `completed`, `failed` or `cancelled` (with `error`), and the stream ends. A finished job answers its end at once.',
        security: ANY_KEY_SECURITY,
        requestParams: { path: jobPath },
        responses: {
          '200': { description: 'The events', content: { 'text/event-stream': { schema: z.string() } } },
          ...errorResponses('openai', [401, 404, 429]),
        },
      },
    },
  };
}
