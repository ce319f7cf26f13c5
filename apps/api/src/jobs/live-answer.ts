import { once } from 'node:events';
import type { Response } from 'express';
import { AppError, type Logger } from '@relay/core';
import { errorBody, sseEvent, type Answer, type Dialect } from '@relay/jobs';
import { partNoticeSchema, type StreamedPart } from '@relay/life';
import type { Outcome } from './run-job.js';
import type { StreamedAnswer } from './stream-answer.js';

export interface LiveDoor {
  head(jobId: string): { contentType: string; headers?: Record<string, string> };
  piece(part: StreamedPart): string | Buffer;
}

/** The parts a job's worker sent after entry `after`, in order (@relay/life readParts). */
export type ReadParts = (jobId: string, after?: string) => Promise<StreamedPart[]>;

/**
 * An answer sent while its job runs: each part the worker sends (a clip's audio as it is spoken)
 * is read from the job's parts stream and written at once, the status line with the first. Until
 * then nothing is sent, so a job that fails before its first part, or sends none, is answered as
 * any other (`settled` says which). Parts are read from where the last read stopped, one read at
 * a time and only as fast as the client takes them. A part missing from the sequence (trimmed, or
 * a second run of the job after a crash) cannot be mended once bytes went out: the answer ends
 * in error there.
 */
export function createLiveAnswer(door: LiveDoor, read: ReadParts, res: Response, log: Logger): StreamedAnswer {
  const sent = new Set<number>();
  let jobId: string | undefined;
  let after: string | undefined;
  let take: string | undefined;
  let frozen = false;
  let broken: string | undefined;
  let chain = Promise.resolve();

  const write = async (part: StreamedPart) => {
    if (sent.size === 0) {
      const { contentType, headers } = door.head(jobId!);
      res.status(200).type(contentType).set('Cache-Control', 'no-cache');
      if (headers) res.set(headers);
      res.flushHeaders();
    }
    sent.add(part.seq);
    // a client that reads slowly holds the next read back; one that leaves ends the wait (its job goes on)
    if (!res.destroyed && !res.write(door.piece(part))) await Promise.race([once(res, 'drain'), once(res, 'close')]).catch(() => undefined);
  };

  const pull = async () => {
    // a client that left needs no more parts: the job goes on, its whole answer is stored
    if (!jobId || broken || res.destroyed) return;
    for (let parts = await read(jobId, after); parts.length > 0; parts = await read(jobId, after)) {
      for (const part of parts) {
        after = part.id;
        if (part.take !== take) {
          if (sent.size > 0) return void (broken = 'the job was run again after its worker stopped, mid-stream');
          take = part.take;
        }
        if (part.seq < sent.size) continue;
        if (part.seq > sent.size) return void (broken = `parts ${sent.size} to ${part.seq - 1} of the stream are missing`);
        await write(part);
      }
    }
  };
  const next = () => {
    chain = chain.then(pull).catch((error: Error) => log.warn({ jobId, err: error.message }, 'a streamed part could not be read'));
    return chain;
  };

  const fail = (dialect: Dialect, error: AppError) => {
    if (res.destroyed) return;
    // an event stream says why; bytes can only stop short (the client sees an incomplete answer)
    if (res.getHeader('content-type')?.toString().startsWith('text/event-stream')) res.end(sseEvent('error', errorBody(dialect, error)));
    else res.destroy();
  };

  return {
    sent,
    onPart(data) {
      const notice = partNoticeSchema.safeParse(JSON.parse(data));
      if (!notice.success || frozen) return;
      jobId ??= notice.data.job;
      void next();
    },
    // the status line waits for the first part
    begin() {},
    async settled() {
      await chain;
      frozen ||= sent.size === 0;
      return !frozen;
    },
    async end(outcome: Exclude<Outcome<unknown>, { state: 'gone' }>, finish: () => Promise<Answer>, dialect: Dialect) {
      if (outcome.state === 'completed') {
        jobId ??= outcome.job.id;
        await next(); // what came after the last notice read
      }
      await chain;
      if (res.destroyed) return;
      if (broken) return fail(dialect, new AppError('unavailable', `job ${jobId}: ${broken}; its whole answer is at /v1/jobs/${jobId}`));
      if (outcome.state === 'failed') return fail(dialect, outcome.error);
      if (outcome.state === 'pending') return fail(dialect, new AppError('unavailable', `job ${outcome.job.id} is still running`));
      const answer = await finish().catch((error: unknown) => error as Error);
      if (answer instanceof Error) return fail(dialect, new AppError('unavailable', `job ${outcome.job.id}: ${answer.message}`));
      if (answer.kind === 'events') for await (const event of answer.events) res.write(event);
      res.end();
    },
  };
}
