import express, { type Request, type RequestHandler } from 'express';
import { z } from 'zod';
import type { ZodOpenApiContentObject, ZodOpenApiPathsObject } from 'zod-openapi';
import { AppError, parseOrThrow, type BlobStore } from '@relay/core';
import { capabilityOfJobId, errorResponses, isJobId, jobObjectSchema, type Doors, type JobMeta, type Payload } from '@relay/jobs';
import { authenticate, type KeySource } from '../auth/authenticate.js';
import type { AccountsStore } from '../auth/accounts.js';
import { ANY_KEY_SECURITY, jsonAnswer } from '../openapi/parts.js';
import { answer } from './answer.js';
import type { AnswerCache } from './answer-cache.js';
import type { Queues } from './queues.js';
import { settledOutcome } from './run-job.js';

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
}

/**
 * GET /v1/jobs/{id}: the job's status, and once done exactly the body the synchronous call
 * would have returned, in the dialect of the door the job came in by. Jobs of other accounts
 * are indistinguishable from missing ones.
 */
export function jobsRoutes({ accounts, keys, readLimit, cache, queues, doors, store, publicBase }: JobsRouteDeps) {
  const router = express.Router();
  router.get('/v1/jobs/:id', authenticate(accounts, keys), readLimit, async (req, res) => {
    const { id } = parseOrThrow(jobPath, req.params);
    const accountId = res.locals.caller!.accountId;
    const capability = isJobId(id) ? capabilityOfJobId(id) : undefined;
    const handle = capability && queues[capability.id];
    const outcome = handle && (await settledOutcome(handle, id));
    if (!capability || !outcome || outcome.state === 'gone' || (outcome.job.data as { meta: JobMeta }).meta.accountId !== accountId) {
      throw new AppError('not_found', `no job ${id}`);
    }
    const door = doors.ofJob(capability.id, (outcome.job.data as { meta: JobMeta }).meta);
    res.locals.dialect = door.dialect;
    const base = publicBase(req);
    const present = cache.presenter(`${id} ${base}`, accountId, (job, result) =>
      door.present(job.data as Payload<typeof capability.id>, result, { publicBase: base, store }),
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
          ...errorResponses('openai', [401, 404, 429]),
        },
      },
    },
  };
}
