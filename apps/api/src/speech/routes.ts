import express, { type Request, type Response } from 'express';
import type { Job } from 'bullmq';
import { ownValue, parseOrThrow, type BlobStore } from '@relay/core';
import {
  MAX_PART_CHARS,
  presentSpeech,
  queuedSpeechRequest,
  speechHold,
  speechJobResultSchema,
  speechRequestSchema,
  type SpeechJob,
} from '@relay/jobs';
import { authenticate, GOOGLE_KEYS } from '../auth/authenticate.js';
import { jsonBody } from '../http/json-body.js';
import { sendJson, type Presenter, type Sender } from '../jobs/answer.js';
import { handleJobRequest, type EndpointDeps } from '../jobs/handle-job-request.js';
import { fingerprint } from '../jobs/idempotency.js';
import { GEMINI_VERSIONS, modelNotFound } from '../gemini/versions.js';

/** The relay's stable link to the stored WAV rides along in this header. */
export const AUDIO_URL_HEADER = 'X-Relay-Audio-Url';

export function speechPresenter(store: BlobStore, base: string): Presenter<unknown> {
  return async (job: Job, raw: unknown) => {
    const result = speechJobResultSchema.parse(raw);
    return {
      body: await presentSpeech(result, (job.data as SpeechJob).model, store),
      headers: { [AUDIO_URL_HEADER]: `${base}/files/${result.file.fileId}` },
    };
  };
}

/** streamGenerateContent: one SSE event with the whole clip, as the upstream sends this model's. */
const sendSse: Sender = (res, body) => {
  res.status(200).type('text/event-stream').set('Cache-Control', 'no-cache');
  res.end(`data: ${JSON.stringify(body)}\r\n\r\n`);
};
/** streamGenerateContent without alt=sse: a JSON array of responses. */
const sendJsonArray: Sender = (res, body) => void res.json([body]);

const ACTIONS = ['generateContent', 'streamGenerateContent'] as const;
type Target = { model: string; action: (typeof ACTIONS)[number] };

/** `vendor-2.5-flash-preview-tts:generateContent` -> model and action. */
function parseModelAction(value: string): Target | undefined {
  const at = value.lastIndexOf(':');
  const action = value.slice(at + 1);
  return at > 0 && (ACTIONS as readonly string[]).includes(action)
    ? { model: value.slice(0, at), action: action as Target['action'] }
    : undefined;
}

export function speechRoutes(deps: EndpointDeps) {
  const router = express.Router();
  for (const version of GEMINI_VERSIONS)
    router.post(
      `/${version}/models/:modelAction`,
      authenticate(deps.accounts, GOOGLE_KEYS),
      deps.limits.requests,
      (req: Request, res: Response, next: express.NextFunction) => {
        const target = parseModelAction(String(req.params.modelAction));
        if (!target || !ownValue(deps.catalog.speechModels, target.model)) {
          const model = target?.model ?? String(req.params.modelAction);
          throw modelNotFound(version, model, Object.keys(deps.catalog.speechModels), 'generateContent');
        }
        res.locals.target = target;
        next();
      },
      // a text part, every character a JSON escape at worst
      jsonBody(deps.config.BODY_LIMIT_BYTES, 6 * MAX_PART_CHARS),
      async (req: Request, res: Response) => {
        const { model, action } = res.locals.target as Target;
        const speechModel = ownValue(deps.catalog.speechModels, model)!;
        const request = queuedSpeechRequest(parseOrThrow(speechRequestSchema(model, speechModel), req.body));
        const caller = res.locals.caller!;
        await handleJobRequest(req, res, deps.jobs, deps.route, {
          ...speechHold(model, speechModel, request),
          fingerprint: () => fingerprint(`/v1beta/models/${model}`, request),
          prepare: async (): Promise<SpeechJob> => ({
            meta: { requestId: res.locals.requestId, accountId: caller.accountId, keyId: caller.keyId, createdAt: Date.now() },
            model,
            request,
          }),
          present: speechPresenter(deps.store, deps.publicBase(req)),
          send: action === 'generateContent' ? sendJson : req.query.alt === 'sse' ? sendSse : sendJsonArray,
        });
      },
    );
  return router;
}
