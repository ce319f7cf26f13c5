import { Queue } from 'bullmq';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { redisConnectionOptions } from '@relay/core';
import { bullPrefix } from '@relay/jobs';
import { postJson, startStack, type Stack } from '@relay/e2e';
import { finalAnswer, generate, IMAGE, settlementsPerJob, SPEECH_PATH, speechBody } from './helpers.js';

/**
 * A job run again after it was charged and stored (its worker died before BullMQ heard it
 * finished; BullMQ gave up on it for stalling and the relay ran it again for its result): the
 * run answers from what the job kept, with no second call to the vendor and no second charge.
 * Here the job is simply run again once completed, the same path without a kill to time.
 */
let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 60_000);
afterAll(async () => stack?.close());

const CAPABILITIES = [
  { queue: 'images', accept: (key: string) => generate(stack, key, IMAGE, { Prefer: 'respond-async' }) },
  {
    queue: 'speech',
    accept: (key: string) =>
      postJson(`${stack.url}${SPEECH_PATH}`, speechBody('said once'), undefined, { 'x-goog-api-key': key, Prefer: 'respond-async' }),
  },
] as const;

test.each(CAPABILITIES)(
  '$queue: a charged job run again answers the same without the vendor or a second charge',
  async ({ queue, accept }) => {
    const { key, accountId } = await stack.newKey();
    const accepted = await accept(key);
    expect(accepted.status).toBe(202);
    const { id } = (await accepted.json()) as { id: string };
    const first = await finalAnswer(stack.url, key, id);
    expect(first.status).toBe(200);
    const calls = (await stack.simStats()).requests[queue];
    const spent = (await stack.account(accountId)).spent;
    expect(spent).toBeGreaterThan(0);

    const connection = redisConnectionOptions(stack.redis.url, 'patient');
    const bull = new Queue(queue, { connection, prefix: bullPrefix(stack.env.REDIS_PREFIX!) });
    try {
      const job = (await bull.getJob(id))!;
      const before = job.returnvalue as unknown;
      await job.retry('completed');
      // run again: the job answers 202 while it waits and runs, then its answer again
      const again = await finalAnswer(stack.url, key, id);
      expect(again.status).toBe(200);
      expect((await bull.getJob(id))!.returnvalue).toEqual(before);
    } finally {
      await bull.close();
    }
    expect((await stack.simStats()).requests[queue]).toBe(calls);
    expect((await stack.account(accountId)).spent).toBe(spent);
    expect([...(await settlementsPerJob(stack, accountId)).values()]).toEqual([1]);
  },
  60_000,
);
