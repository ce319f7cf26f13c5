import type { RelayJob } from '@relay/jobs';
import { describe, expect, test } from 'vitest';
import type { ImageSet } from '../upstreams/images.js';
import { UpstreamError } from '../upstreams/upstream-error.js';
import { ChannelsCooling } from '@relay/channels';
import { runGenerations, type Answered } from './generations.js';

/** The parts of a BullMQ job the runner touches: its progress, and how many attempts it has; `lasts` what each checkpoint said. */
function fakeJob(attempt = 1, attempts = 4) {
  const job = {
    progress: {} as unknown,
    attemptsMade: attempt - 1,
    opts: { attempts },
    lasts: [] as boolean[],
    checkpoint: async (progress: object, last: boolean) => {
      job.progress = structuredClone(progress);
      job.lasts.push(last);
    },
  };
  return job;
}
const asJob = (job: ReturnType<typeof fakeJob>) => job as unknown as RelayJob<'images'>;
/** Runs the generations of a fake job, checkpointing into it. */
const run = (job: ReturnType<typeof fakeJob>, count: number, generate: () => Promise<Answered>) =>
  runGenerations(asJob(job), count, generate, job.checkpoint);

const answer = (url: string): ImageSet => ({ model: 'm', created: 1, data: [{ url, size: '2048x2048' }] });
/** Plays a script of upstream results, one per call, in call order. */
function upstream(script: Array<ImageSet | Error>) {
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    generate: async () => {
      const next = script[calls++];
      if (!next) throw new Error('more calls than scripted');
      if (next instanceof Error) throw next;
      return { answer: next, channel: 'ark' };
    },
  };
}

describe('runGenerations', () => {
  test('n answers, each checkpointed: a retry after a failed sibling calls only for the missing one', async () => {
    const job = fakeJob();
    const first = upstream([answer('a'), new UpstreamError('transient', 'HTTP 500'), answer('c')]);
    await expect(run(job, 3, first.generate)).rejects.toThrow('HTTP 500');
    expect(first.calls).toBe(3);

    job.attemptsMade = 1;
    const retry = upstream([answer('b')]);
    const outcomes = await run(job, 3, retry.generate);
    expect(retry.calls).toBe(1);
    expect(outcomes.map((o) => ('answer' in o ? (o.answer.data[0] as { url: string }).url : 'none'))).toEqual(['a', 'b', 'c']);

    const again = upstream([]);
    await run(job, 3, again.generate);
    expect(again.calls).toBe(0);
    // only the checkpoint that completed the set says the job's calls are over
    expect(job.lasts).toEqual([false, false, true]);
  });

  test('a refusal is final and recorded; the others are delivered', async () => {
    const job = fakeJob();
    const refusal = new UpstreamError('refused', 'sensitive', { status: 400, code: 'InputTextSensitiveContentDetected', moderation: true });
    const outcomes = await run(job, 2, upstream([refusal, answer('b')]).generate);
    expect(outcomes[0]).toEqual({ refused: { code: 'InputTextSensitiveContentDetected', message: 'sensitive', moderation: true } });
    expect(outcomes[1]).toEqual({ answer: answer('b'), channel: 'ark' });
  });

  test("a refusal (the adapter's, for a moderated answer) is the generation's outcome; an answer without images is retried", async () => {
    const refused = new UpstreamError('refused', 'x', { code: 'OutputImageSensitiveContentDetected', moderation: true });
    expect(await run(fakeJob(), 1, upstream([refused]).generate)).toEqual([
      { refused: { code: 'OutputImageSensitiveContentDetected', message: 'x', moderation: true } },
    ]);
    const stopped: ImageSet = { model: 'm', created: 1, data: [{ error: { code: 'InternalServiceError', message: 'x' } }] };
    await expect(run(fakeJob(), 1, upstream([stopped]).generate)).rejects.toThrow('no image delivered');
  });

  test('on the last attempt a generation still failing is given up when another delivered', async () => {
    const job = fakeJob(4, 4);
    const outcomes = await run(job, 2, upstream([answer('a'), new UpstreamError('transient', 'HTTP 503')]).generate);
    expect(outcomes[1]).toEqual({ gaveUp: { code: 'upstream_failed', message: 'upstream failed after 4 attempts: HTTP 503' } });
    // with nothing delivered the failure stands
    await expect(run(fakeJob(4, 4), 1, upstream([new UpstreamError('transient', 'HTTP 503')]).generate)).rejects.toThrow('HTTP 503');
  });

  test('a pause (429, every channel cooling) wins over a retryable failure, and a final failure over both', async () => {
    const limited = new UpstreamError('rate-limited', '429');
    const cooling = new ChannelsCooling(5_000);
    await expect(run(fakeJob(4, 4), 2, upstream([answer('a'), cooling]).generate)).rejects.toBe(cooling);
    const broken = new UpstreamError('misconfigured', '401');
    await expect(run(fakeJob(), 2, upstream([new UpstreamError('transient', '500'), limited]).generate)).rejects.toBe(limited);
    await expect(run(fakeJob(4, 4), 3, upstream([answer('a'), limited, broken]).generate)).rejects.toBe(broken);
  });

  test('a job checkpointed before generations were counted keeps its single answer', async () => {
    const job = fakeJob();
    job.progress = { generated: answer('old') };
    const none = upstream([]);
    expect(await run(job, 1, none.generate)).toEqual([{ answer: answer('old') }]);
    expect(none.calls).toBe(0);
  });
});
