import type { Job } from 'bullmq';
import type { Response } from 'express';
import { isAppError, storeUnavailable } from '@relay/core';
import { sendError, type Dialect } from '../http/dialects.js';
import type { JobObject } from '@relay/jobs';
import { JsonText } from './answer-cache.js';
import type { JobMeta } from '@relay/jobs';
import type { Scheduler } from '@relay/scheduler';
import type { QueueHandle } from './queues.js';
import type { Outcome } from './run-job.js';

/** A finished job's success answer: the endpoint's body and any headers that go with it. */
export interface Presented {
  body: unknown;
  headers?: Record<string, string>;
}

export type Presenter<R> = (job: Job, result: R) => Promise<Presented>;

/** How the body is written; streaming endpoints frame it as server-sent events. */
export type Sender = (res: Response, body: unknown) => void;
export const sendJson: Sender = (res, body) =>
  void (body instanceof JsonText ? res.type('application/json').send(body.text) : res.json(body));

export const jobLink = (jobId: string) => `/v1/jobs/${jobId}`;

/** The job as a 202 describes it; while queued, where it stands in the schedule and when it should start. */
export async function jobObject(job: Job, scheduler: Scheduler): Promise<JobObject> {
  const state = await job.getState();
  const status = state === 'active' ? 'running' : state === 'completed' || state === 'failed' ? state : 'queued';
  const described: JobObject = {
    id: job.id!,
    object: 'relay.job',
    status,
    created: Math.floor(job.timestamp / 1000),
    links: { self: jobLink(job.id!) },
  };
  const { lane, accountId } = (job.data as { meta: JobMeta }).meta;
  if (status !== 'queued' || !lane) return described;
  const { position, startsInMs } = await scheduler.estimate(lane, accountId, job.id);
  return { ...described, position, ...(startsInMs !== undefined ? { estimated_start: Math.ceil((Date.now() + startsInMs) / 1000) } : {}) };
}

/**
 * The answer of a finished job. Its result is paid for and kept: when the store cannot give it
 * back right now, the client gets a retryable 503 that names the job (Location), never a 500.
 */
async function presentFinished<R>(res: Response, job: Job, result: R, present: Presenter<R>): Promise<Presented> {
  try {
    return await present(job, result);
  } catch (error) {
    res.set('Location', jobLink(job.id!));
    if (isAppError(error) && error.status !== 503) throw error;
    throw storeUnavailable(
      isAppError(error) ? error.cause : error,
      `job ${job.id} finished, but its result cannot be read from the file store right now; fetch it from ${jobLink(job.id!)} shortly`,
    );
  }
}

/**
 * One way to answer a job, shared by the synchronous calls and GET /v1/jobs/{id}: the success
 * body, the error in the endpoint's dialect, or 202 with a link while it is still running.
 */
export async function answer<R>(
  res: Response,
  handle: QueueHandle,
  outcome: Exclude<Outcome<R>, { state: 'gone' }>,
  present: Presenter<R>,
  dialect: Dialect,
  send = sendJson,
) {
  if (outcome.state === 'failed') return sendError(res, outcome.error, dialect);
  if (outcome.state === 'pending') {
    return void res
      .status(202)
      .location(jobLink(outcome.job.id!))
      .json(await jobObject(outcome.job, handle.scheduler));
  }
  const { body, headers } = await presentFinished(res, outcome.job, outcome.result, present);
  if (headers) res.set(headers);
  send(res, body);
}
