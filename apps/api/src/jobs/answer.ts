import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';
import { getObject, isAppError, storeUnavailable, type BlobStore } from '@relay/core';
import type { Answer, JobObject, RelayJob } from '@relay/jobs';
import type { Scheduler } from '@relay/scheduler';
import { sendError, type Dialect } from '../http/dialects.js';
import { JsonText } from './json-text.js';
import type { QueueHandle } from './queues.js';
import type { Outcome } from './run-job.js';

/** A finished job's answer, built by the door the job came in by. */
export type Presenter = (job: RelayJob, result: unknown) => Promise<Answer>;

export const jobLink = (jobId: string) => `/v1/jobs/${jobId}`;

/** The job as a 202 describes it; while queued, where it stands in the schedule and when it should start. */
export async function jobObject(job: RelayJob, scheduler: Scheduler): Promise<JobObject> {
  const state = await job.getState();
  const status = state === 'active' ? 'running' : state === 'completed' || state === 'failed' ? state : 'queued';
  const described: JobObject = {
    id: job.id!,
    object: 'relay.job',
    status,
    created: Math.floor(job.timestamp / 1000),
    links: { self: jobLink(job.id!) },
  };
  const { lane, accountId } = job.data.meta;
  if (status !== 'queued' || !lane) return described;
  const { position, startsInMs } = await scheduler.estimate(lane, accountId, job.id);
  return {
    ...described,
    position,
    ...(startsInMs !== undefined ? { estimated_start: Math.ceil((Date.now() + startsInMs) / 1000) } : {}),
  };
}

/** The store cannot give a paid result back right now: a retryable 503 that names the job (Location), never a 500. */
function unreadable(res: Response, job: RelayJob, error: unknown) {
  res.set('Location', jobLink(job.id!));
  if (isAppError(error) && error.status !== 503) return error;
  return storeUnavailable(
    isAppError(error) ? error.cause : error,
    `job ${job.id} finished, but its result cannot be read from the file store right now; fetch it from ${jobLink(job.id!)} shortly`,
  );
}

/** Writes an answer: JSON (built once, maybe cached), a stored file streamed, or server-sent events. */
async function write(res: Response, job: RelayJob, answer: Answer, store: BlobStore) {
  if (answer.headers) res.set(answer.headers);
  switch (answer.kind) {
    case 'json':
      if (answer.body instanceof JsonText) return void res.type('application/json').send(answer.body.text);
      return void res.json(answer.body);
    case 'file': {
      let file;
      try {
        file = await getObject(store, answer.key);
      } catch (error) {
        throw unreadable(res, job, error);
      }
      res.status(200).type(answer.contentType);
      if (file.contentLength !== undefined) res.set('Content-Length', String(file.contentLength));
      // the client may leave mid-file: the job and its file stay, nothing else to undo
      return pipeline(file.body, res).catch(() => undefined);
    }
    case 'events':
      res.status(200).type('text/event-stream').set('Cache-Control', 'no-cache');
      res.flushHeaders();
      for await (const event of answer.events) {
        if (res.destroyed) return;
        res.write(event);
      }
      return void res.end();
  }
}

/**
 * One way to answer a job, shared by the synchronous calls and GET /v1/jobs/{id}: the success
 * answer, the error in the endpoint's dialect, or 202 with a link while it is still running.
 */
export async function answer(
  res: Response,
  handle: QueueHandle,
  outcome: Exclude<Outcome<unknown>, { state: 'gone' }>,
  present: Presenter,
  dialect: Dialect,
  store: BlobStore,
) {
  if (outcome.state === 'failed') return sendError(res, outcome.error, dialect);
  if (outcome.state === 'pending') {
    return void res
      .status(202)
      .location(jobLink(outcome.job.id!))
      .json(await jobObject(outcome.job, handle.scheduler));
  }
  let presented: Answer;
  try {
    presented = await present(outcome.job, outcome.result);
  } catch (error) {
    throw unreadable(res, outcome.job, error);
  }
  await write(res, outcome.job, presented, store);
}
