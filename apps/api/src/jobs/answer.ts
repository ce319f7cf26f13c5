import type { Job } from 'bullmq';
import type { Response } from 'express';
import { sendError, type Dialect } from '../http/dialects.js';
import type { Outcome } from './run-job.js';

/** Turns a finished job's result into the endpoint's success body. */
export type Presenter<R> = (job: Job, result: R) => Promise<unknown>;

export async function jobObject(job: Job) {
  const state = await job.getState();
  return {
    id: job.id,
    object: 'relay.job',
    status: state === 'active' ? 'running' : state === 'completed' || state === 'failed' ? state : 'queued',
    created: Math.floor(job.timestamp / 1000),
    links: { self: `/v1/jobs/${job.id}` },
  };
}

/**
 * One way to answer a job, shared by the synchronous call and GET /v1/jobs/{id}: the success
 * body, the error in the endpoint's dialect, or 202 with a link when it is still running.
 */
export async function answer<R>(res: Response, outcome: Outcome<R>, present: Presenter<R>, dialect: Dialect) {
  if (outcome.state === 'completed') return void res.status(200).json(await present(outcome.job, outcome.result));
  if (outcome.state === 'failed') return sendError(res, outcome.error, dialect);
  res.status(202).location(`/v1/jobs/${outcome.job.id}`).json(await jobObject(outcome.job));
}
