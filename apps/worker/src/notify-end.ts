import type { Redis } from 'ioredis';
import type { Job } from 'bullmq';
import { notifyWaiters, type JobMeta, type StoredFile } from '@relay/jobs';
import type { JobEnd } from './job-ends.js';

/**
 * A job's end to the api processes waiting for it (life/notices.ts): the result or the reason
 * rides in the notice, so the waiter answers without reading the job back. A job no request
 * waits for (a batch line) names no inbox and has no waiter set: nothing is sent.
 */
export async function notifyEnd(redis: Redis, prefix: string, end: JobEnd) {
  const meta = (end.job.data as { meta?: Pick<JobMeta, 'inbox' | 'batch'> }).meta;
  if (!meta?.inbox) return;
  const data = end.outcome === 'completed' ? JSON.stringify(end.result) : end.failedReason;
  await notifyWaiters(redis, prefix, { type: end.outcome, jobId: end.job.id!, data }, meta.inbox);
}

/** One image of a streamed set, stored: the waiting caller sends it on at once. */
export async function notifyPartial(redis: Redis, prefix: string, job: Job, file: StoredFile) {
  const meta = (job.data as { meta?: Pick<JobMeta, 'inbox'> }).meta;
  if (!meta?.inbox) return;
  await notifyWaiters(redis, prefix, { type: 'partial', jobId: job.id!, data: JSON.stringify(file) }, meta.inbox);
}
