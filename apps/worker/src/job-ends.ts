import type { Job, Worker } from 'bullmq';
import type { Logger } from '@relay/core';
import type { QueueName } from '@relay/jobs';

/** How a job ended for good: completed with its result, or failed with the reason it was given up on. */
export type JobEnd = { job: Job; queue: QueueName } & (
  { outcome: 'completed'; result: unknown } | { outcome: 'failed'; failedReason: string }
);

export type EndSubscriber = (end: JobEnd) => unknown;

/**
 * The one place that decides a job has ended, for everyone who cares (waiters, the schedule,
 * batches, webhooks): a completion, or a failure BullMQ will not retry, known from the job
 * BullMQ just moved (a final failure has `finishedOn`; a retry has not) with no read of Redis.
 * A job that stalled too often is failed by the next worker that takes it (BullMQ marks it for
 * a deferred failure), which emits it here like any other final failure.
 */
export function onJobEnds(workers: Worker[], subscribers: EndSubscriber[], log: Logger) {
  const tell = (end: JobEnd) => {
    for (const subscriber of subscribers) {
      try {
        const done = subscriber(end);
        if (done instanceof Promise)
          done.catch((err: Error) => log.warn({ jobId: end.job.id, err: err.message }, 'a job-end subscriber failed'));
      } catch (error) {
        log.warn({ jobId: end.job.id, err: (error as Error).message }, 'a job-end subscriber failed');
      }
    }
  };
  for (const worker of workers) {
    const queue = worker.name as QueueName;
    worker.on('completed', (job, result) => tell({ job, queue, outcome: 'completed', result }));
    worker.on('failed', (job) => {
      if (job?.finishedOn) tell({ job, queue, outcome: 'failed', failedReason: job.failedReason });
    });
  }
}
