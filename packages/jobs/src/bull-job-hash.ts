/**
 * The one place the relay reads or writes a BullMQ job's hash itself instead of through BullMQ's
 * calls, each for a round trip BullMQ's call would cost more:
 * - the progress a worker checkpoints goes to Redis in the same round trip as other steps
 *   (runSteps), where `job.updateProgress` is a round trip of its own plus an event;
 * - whether a job is still under way is one HMGET, where `getJobState` runs a script over its
 *   lists, for thousands of waits that look at once.
 *
 * What it relies on, in BullMQ 6 (package.json: ^6.7.0): a job's hash is at
 * `${job.queueQualifiedName}:${job.id}`; `progress` holds the JSON `job.progress` is read back
 * from; `timestamp` is set when the job is added; `finishedOn` is set when it completes or fails
 * for good; a removed job has no hash. bull-job-hash.int.test.ts runs real BullMQ jobs and fails
 * when any of that changes.
 */
import { luaCommand, type Step } from '@relay/core';
import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import progressLua from './lua/job-progress.lua';

type HeldJob = Pick<Job, 'queueQualifiedName' | 'id'>;

/** Where BullMQ keeps a job's hash. */
const hashOf = (job: HeldJob) => `${job.queueQualifiedName}:${job.id}`;

const progressScript = luaCommand({
  name: 'jobs.progress',
  lua: progressLua,
  keys: ['job'],
  args: ['progress'],
  reply: z.literal([0, 1]),
});

/** Writes a job's progress (as `job.progress` reads it back), to send with other steps: 1 written, 0 the job is gone. */
export const progressStep = (job: HeldJob, progress: object): Step<0 | 1> =>
  progressScript.step({ job: hashOf(job) }, { progress: JSON.stringify(progress) });

/** Whether a job is still under way: added (it has a hash) and not finished for good. */
export async function isUnderWay(redis: Redis, job: HeldJob): Promise<boolean> {
  const [timestamp, finishedOn] = await redis.hmget(hashOf(job), 'timestamp', 'finishedOn');
  return timestamp !== null && finishedOn === null;
}
