import type { Job } from 'bullmq';
import type { Response } from 'express';
import { sendError, type Dialect } from '../http/dialects.js';
import type { JobObject } from '../schemas/openai.js';
import type { Outcome } from './run-job.js';

/** A finished job's success answer: the endpoint's body and any headers that go with it. */
export interface Presented {
  body: unknown;
  headers?: Record<string, string>;
}

export type Presenter<R> = (job: Job, result: R) => Promise<Presented>;

/** How the body is written; streaming endpoints frame it as server-sent events. */
export type Sender = (res: Response, body: unknown) => void;
export const sendJson: Sender = (res, body) => void res.json(body);

export async function jobObject(job: Job): Promise<JobObject> {
  const state = await job.getState();
  return {
    id: job.id!,
    object: 'relay.job',
    status: state === 'active' ? 'running' : state === 'completed' || state === 'failed' ? state : 'queued',
    created: Math.floor(job.timestamp / 1000),
    links: { self: `/v1/jobs/${job.id}` },
  };
}

/**
 * One way to answer a job, shared by the synchronous calls and GET /v1/jobs/{id}: the success
 * body, the error in the endpoint's dialect, or 202 with a link while it is still running.
 */
export async function answer<R>(res: Response, outcome: Outcome<R>, present: Presenter<R>, dialect: Dialect, send = sendJson) {
  if (outcome.state === 'failed') return sendError(res, outcome.error, dialect);
  if (outcome.state === 'pending') {
    return void res.status(202).location(`/v1/jobs/${outcome.job.id}`).json(await jobObject(outcome.job));
  }
  const { body, headers } = await present(outcome.job, outcome.result);
  if (headers) res.set(headers);
  send(res, body);
}
