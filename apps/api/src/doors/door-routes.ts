import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { deleteObject, type BlobStore, type Logger, type UrlPolicy } from '@relay/core';
import { isJobOf, JOB_META_VERSION, newJobId, type Door, type JobMeta, type QueueName } from '@relay/jobs';
import type { AccountsStore } from '../auth/accounts.js';
import { authenticate, GOOGLE_KEYS, OPENAI_KEYS } from '../auth/authenticate.js';
import type { ApiConfig } from '../config.js';
import { jsonBody } from '../http/json-body.js';
import { handleJobRequest, type JobRequestDeps, type JobRoute } from '../jobs/handle-job-request.js';
import { fingerprint } from '../jobs/idempotency.js';
import { createPartStream, type StreamedAnswer } from '../jobs/stream-answer.js';
import { createLiveAnswer } from '../jobs/live-answer.js';
import type { StreamedPart } from '@relay/life';
import { readImageForm } from './image-form.js';
import { parseRelayWebhook } from '../http/relay-webhook.js';

export interface DoorDeps {
  config: ApiConfig;
  accounts: AccountsStore;
  store: BlobStore;
  urls: UrlPolicy;
  jobs: JobRequestDeps;
  /** Each capability's queue as an endpoint sees it. */
  routes: Record<QueueName, Omit<JobRoute, 'dialect'>>;
  publicBase: (req: Request) => string;
  /** The key's rate limit generation calls count against. */
  limit: RequestHandler;
  /** The app's error scope: how an error of a request the door took is answered. */
  fail: (error: unknown, req: Request, res: Response) => void;
  log: Logger;
}

const KEYS = { openai: OPENAI_KEYS, google: GOOGLE_KEYS } as const;

const isForm = (req: Request) => Boolean(req.is('multipart/form-data'));
/** A JSON step a form skips (the door reads its multipart body itself). */
const unlessForm = (step: RequestHandler) => (req: Request, res: Response, next: NextFunction) =>
  isForm(req) ? next() : step(req, res, next);

/**
 * One door of the registry as Express routes, the same steps for every door: its clients' key,
 * the rate limit, what the path names (before the body is read), the body, then the door's own
 * parse, checks and job, through the path every generation takes (handleJobRequest). Errors
 * speak the door's dialect.
 */
export function doorRoutes<Q extends QueueName, R, I>(door: Door<Q, R, I>, deps: DoorDeps) {
  const router = express.Router();
  const route: JobRoute = { ...deps.routes[door.capability.id], dialect: door.dialect };
  const inputs = { store: deps.store, maxBytes: deps.config.tuning.inputImageMaxBytes, urls: deps.urls };
  const maxStringBytes = door.http.maxStringBytes({ inputImageMaxBytes: deps.config.tuning.inputImageMaxBytes });
  // a door whose longest string grows with the input image limit takes inline images: an oversize one is told in those terms
  const takesImages = door.http.maxStringBytes({ inputImageMaxBytes: 2 * deps.config.tuning.inputImageMaxBytes }) > maxStringBytes;
  // a path the door takes is answered in its dialect, its errors too (the app's one error scope reads it)
  const claims = (req: Request, res: Response, next: NextFunction) => {
    if (door.http.claims?.(req.params as Record<string, string>) === false) return next('route');
    res.locals.dialect = door.dialect;
    next();
  };
  const resolve = (req: Request, _res: Response, next: NextFunction) => {
    door.http.resolve?.(req.path, req.params as Record<string, string>);
    next();
  };
  const json = jsonBody(deps.config.tuning.bodyLimitBytes, {
    maxStringBytes,
    form: door.http.form === true,
    ...(takesImages ? { inputImageMaxBytes: deps.config.tuning.inputImageMaxBytes } : {}),
  });
  /**
   * The request from its body on, to its answer. The routers are done with it: a request that
   * waits minutes for its job would keep both routers' state of it alive all that time (their
   * `next` closures, through the promise handed back and `req.next`: about 2 KB per waiting
   * request, measured with npm run bench:heap). So Express is handed no promise, `req.next` is
   * let go, and an error goes to the app's error scope directly, as `next(error)` took it there.
   */
  const handle = (req: Request, res: Response) => {
    req.next = undefined;
    serve(req, res).catch((error: unknown) => deps.fail(error, req, res));
  };
  const serve = async (req: Request, res: Response) => {
    // a form's images are streamed into the store while it is read: under the job id it will have
    const formJobId = door.http.form && isForm(req) ? newJobId(door.capability.kind) : undefined;
    const sent = formJobId ? await readImageForm(req, deps.store, formJobId, deps.config.tuning.inputImageMaxBytes) : undefined;
    let prepared = false;
    try {
      const params = req.params as Record<string, string>;
      const call = door.parse({ path: req.path, body: req.body, params, query: req.query, ...(sent ? { form: sent } : {}) });
      const inspected = await door.inspect(call, inputs);
      const caller = res.locals.caller!;
      const publicBase = deps.publicBase(req);
      const webhook = await parseRelayWebhook(req, deps.urls);
      const hold = door.hold(call);
      await handleJobRequest(req, res, deps.jobs, route, {
        ...(webhook ? { webhook: { ...webhook, base: publicBase } } : {}),
        ...(formJobId ? { jobId: formJobId } : {}),
        ...hold,
        fingerprint: () => fingerprint(door.name, door.fingerprint(call)),
        prepare: (jobId) => {
          prepared = true;
          const meta: JobMeta = {
            v: JOB_META_VERSION,
            requestId: res.locals.requestId,
            accountId: caller.accountId,
            keyId: caller.keyId,
            createdAt: Date.now(),
            model: hold.reservation.model,
            door: door.name,
          };
          return door.prepare(inspected, jobId, meta, deps.store);
        },
        present: (job, result, streamed) => {
          // a job is read back by the door that made it, so by its own queue: anything else is a bug, said as one
          if (!isJobOf(door.capability.id, job)) throw new Error(`a job read back by the ${door.name} door is not in its queue`);
          // the answer's reads take the files its worker just stored from Redis when there (jobs.store)
          return door.present(job.data, result, { publicBase, store: deps.jobs.store, call, streamed });
        },
        ...streamOf(call, res, publicBase),
      });
    } catch (error) {
      // a form refused before its job was made (400, 402, 429, ...) leaves no upload behind
      if (sent && !prepared) await Promise.allSettled(sent.files.map((file) => deleteObject(deps.store, file.key)));
      throw error;
    }
  };
  /** How a call that asks for its results as they are made is answered: its parts as they come, or its images as events. */
  const streamOf = (call: R, res: Response, publicBase: string): { stream?: StreamedAnswer } => {
    const { live, stream } = door;
    if (live?.wanted(call)) {
      const piece = { head: (jobId: string) => live.head(call, jobId, publicBase), piece: (part: StreamedPart) => live.piece(call, part) };
      return { stream: createLiveAnswer(piece, deps.jobs.parts, res, deps.log) };
    }
    if (stream?.wanted(call))
      return { stream: createPartStream((part) => stream.part(call, part, { publicBase, store: deps.jobs.store }), deps.log) };
    return {};
  };
  for (const path of door.http.paths) {
    router.post(
      path,
      claims,
      authenticate(deps.accounts, KEYS[door.http.credentials]),
      deps.limit,
      resolve,
      ...(door.http.form ? json.map(unlessForm) : json),
      handle,
    );
  }
  return router;
}
