import { freshStep, luaCommand, runStep, runSteps, valueOf, type FreshFile, type ScriptHost } from '@relay/core';
import type { MetaJob, StoredFile } from '@relay/jobs';
import { billingKeys } from '@relay/billing';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import followLua from './lua/follow.lua';
import notifyLua from './lua/notify.lua';

/**
 * Notices of a job's end reach the api processes that wait for it, and no other: each api
 * process reads an inbox of its own (a Redis stream), named in the jobs it adds (meta.inbox);
 * a process that waits for a job it did not add (an Idempotency-Key replay) puts its inbox in
 * the job's waiter set. A fleet of N api processes then costs each request O(1), not O(N).
 * Every key shares the prefix's hash tag (Redis Cluster).
 */
export const inboxKey = (prefix: string, processId: string) => `${prefix}:inbox:${processId}`;
export const waiterSetKey = (prefix: string, jobId: string) => `${prefix}:job:${jobId}:waiters`;

/**
 * What a notice says: the job completed (with its result), failed for good (with its reason), was
 * removed, delivered a part, or began its upstream call (told by @relay/billing's begin, in the
 * same step, to the job's waiter set: those following its events).
 */
export type NoticeType = 'completed' | 'failed' | 'removed' | 'partial' | 'started';

export interface Notice {
  type: NoticeType;
  jobId: string;
  /** The result (completed, partial) as JSON, or the failedReason (failed); empty for removed. */
  data: string;
}

/** An inbox keeps at most about this many unread notices (its process reads them within milliseconds). */
export const INBOX_MAX_LENGTH = 10_000;

const notify = luaCommand({
  name: 'notify-waiters',
  lua: notifyLua,
  keys: ['waiters', 'inbox'],
  args: ['type', 'jobId', 'data', 'final', 'maxLength'],
  reply: z.number(),
});

/**
 * Tells the job's waiters. `inbox` is the creator's (meta.inbox); without one (a batch line,
 * a job added before notices existed) only the waiter set is told.
 */
export async function notifyWaiters(redis: ScriptHost, prefix: string, notice: Notice, inbox: string | undefined) {
  await runStep(redis, noticeStep(prefix, notice, inbox));
}

/** The notice as a step, to send with others in one script. */
export function noticeStep(prefix: string, notice: Notice, inbox: string | undefined) {
  const set = waiterSetKey(prefix, notice.jobId);
  const final = notice.type === 'partial' || notice.type === 'started' ? '0' : '1';
  return notify.step(
    { waiters: set, inbox: inbox ?? set },
    { type: notice.type, jobId: notice.jobId, data: notice.data, final, maxLength: INBOX_MAX_LENGTH },
  );
}

/** How long a waiter set outlives its last waiter's registration: longer than any wait. */
export const WAITER_SET_TTL_SECONDS = 3_600;

const follow = luaCommand({
  name: 'follow-job',
  lua: followLua,
  keys: ['waiters', 'reservation'],
  args: ['inbox', 'ttlSeconds'],
  reply: z.literal(1),
});

/**
 * `inbox` hears the job's notices from now on (its begin, its parts, its end): for a process that
 * waits for a job it did not add. The job's reservation is marked followed in the same step: a
 * job nobody follows is told no one but its creator, without a look at its waiter set.
 */
export async function followJob(redis: Redis, prefix: string, jobId: string, inbox: string) {
  await follow(
    redis,
    { waiters: waiterSetKey(prefix, jobId), reservation: billingKeys(prefix).reservation(jobId) },
    { inbox, ttlSeconds: WAITER_SET_TTL_SECONDS },
  );
}

const inboxOf = (job: MetaJob) => job.data.meta.inbox;

/**
 * A job's end to the api processes waiting for it: the result or the reason rides in the notice,
 * so the waiter answers without reading the job back. An async job names no inbox (nobody waited
 * when it was added) but may have a waiter set (an Idempotency-Key replay came to wait); a batch
 * line is never waited for, so nothing is sent.
 */
export async function notifyEnd(redis: ScriptHost, prefix: string, job: MetaJob, end: { result: unknown } | { failedReason: string }) {
  if (job.data.meta.batch) return;
  const [type, data] = 'result' in end ? (['completed', JSON.stringify(end.result)] as const) : (['failed', end.failedReason] as const);
  await notifyWaiters(redis, prefix, { type, jobId: job.id!, data }, inboxOf(job));
}

/**
 * One image of a set, stored: the waiting caller (a stream) sends it on at once, and so do those
 * following the job's events. `fresh`: its bytes, when the caller's events carry them (b64_json),
 * published to the waiting process just before the notice, in the same round trip (@relay/core's
 * fresh.ts), so its answer need not read them back from the store.
 */
export async function notifyPartial(redis: ScriptHost, prefix: string, job: MetaJob, file: StoredFile, fresh?: FreshFile) {
  const inbox = inboxOf(job);
  const notice = noticeStep(prefix, { type: 'partial', jobId: job.id!, data: JSON.stringify(file) }, inbox);
  const published = fresh && inbox ? freshStep(inbox, fresh) : undefined;
  if (!published) return void (await runStep(redis, notice));
  // a file that could not be published is read from the store: only the notice must have gone
  valueOf((await runSteps(redis, [published, notice]))[1]);
}
