import type { Response } from 'express';
import { storeUnavailable, type AppError, type Logger } from '@relay/core';
import { errorBody, sseEvent, type Answer, type Dialect } from '@relay/jobs';
import { jobLink } from './answer.js';
import type { Outcome } from './run-job.js';

/** Turns one part the worker announced (its notice payload) into the event the door sends, with the part's index. */
export type PartEvent = (part: unknown) => Promise<{ index: number; event: string }>;

/** An answer written while its job runs, from the parts its worker announces, then its end. */
export interface StreamedAnswer {
  /** The indexes of the parts already sent. */
  readonly sent: ReadonlySet<number>;
  /** A part notice (registered with the wait, so none is missed while the job is added). */
  onPart(data: string): void;
  /** The job is admitted. */
  begin(response: Response): void;
  /** The job's outcome is in: whether the answer began (its end is then `end`), or it is answered as any other. */
  settled(): Promise<boolean>;
  /** The last of it: the door's end for a completed job, or the failure in the dialect. */
  end(outcome: Exclude<Outcome<unknown>, { state: 'gone' }>, finish: () => Promise<Answer>, dialect: Dialect): Promise<void>;
}

/**
 * A streamed answer: the parts of the job (a set's images) written as events the moment the
 * worker announces them, in the order announced, then the end the door builds from the result
 * (what was not sent yet, and `completed`), or an `error` event in the dialect. Once the stream
 * began every outcome is an event: the status line went out as 200 with the first byte.
 */
export function createPartStream(toEvent: PartEvent, log: Logger): StreamedAnswer {
  const sent = new Set<number>();
  let res: Response | undefined;
  const early: string[] = [];
  let chain = Promise.resolve();
  const write = (text: string) => {
    if (!res) return void early.push(text);
    if (!res.destroyed) res.write(text);
  };
  return {
    sent,
    onPart(data: string) {
      chain = chain
        .then(async () => {
          const { index, event } = await toEvent(JSON.parse(data) as unknown);
          sent.add(index);
          write(event);
        })
        .catch((error: Error) => log.warn({ err: error.message }, 'a streamed part could not be sent; it comes with the end'));
    },
    /** The stream begins at admission (headers now, then what arrived meanwhile). */
    begin(response: Response) {
      res = response;
      res.status(200).type('text/event-stream').set('Cache-Control', 'no-cache');
      res.flushHeaders();
      for (const text of early.splice(0)) write(text);
    },
    settled: async () => true,
    async end(outcome: Exclude<Outcome<unknown>, { state: 'gone' }>, finish: () => Promise<Answer>, dialect: Dialect) {
      await chain;
      if (!res || res.destroyed) return;
      if (outcome.state === 'failed') return void res.end(errorEvent(dialect, outcome.error));
      if (outcome.state === 'pending') {
        const error = storeUnavailable(
          undefined,
          `job ${outcome.job.id} is still running; its answer will be at ${jobLink(outcome.job.id!)}`,
        );
        return void res.end(errorEvent(dialect, error));
      }
      let answer: Answer;
      try {
        answer = await finish();
      } catch (error) {
        const failure = storeUnavailable(
          error,
          `job ${outcome.job.id} finished, but its images cannot be read right now; fetch them from ${jobLink(outcome.job.id!)}`,
        );
        return void res.end(errorEvent(dialect, failure));
      }
      if (answer.kind === 'events') for await (const event of answer.events) write(event);
      res.end();
    },
  };
}

/** OpenAI's SDK throws on an `error` event (or a data.error object): the error as the dialect's body. */
const errorEvent = (dialect: Dialect, error: AppError) => sseEvent('error', errorBody(dialect, error));
