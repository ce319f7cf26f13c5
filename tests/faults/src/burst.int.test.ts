import { afterAll, beforeAll, expect, test } from 'vitest';
import { waitFor } from '@relay/testkit';
import { startStack, type Stack } from '@relay/e2e';
import { finalAnswer, generate } from './helpers.js';

const CALLS = 1_000;
const PER_MINUTE = 600;
/** The relay starts at most one call per interval (its per-minute limit, as the upstream's): 100 ms. */
const intervalMs = 60_000 / PER_MINUTE;
/** So the burst cannot be answered in less than this: 100 s. */
const pacedMs = CALLS * intervalMs;
/** No answer for 300 intervals (30 s) while one is due every 100 ms: the relay has stalled, it is not merely slow. */
const stallMs = 300 * intervalMs;
/** The test's own bound: the relay at half the pace (a CPU hog beside it), plus a minute to send the burst and read the answers. */
const timeoutMs = 2 * pacedMs + 60_000;
const queues = { images: { maxConcurrent: 10, maxPerMinute: PER_MINUTE } };
const worker = { WORKER_CONCURRENCY: '16' };
let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ simulator: { SIM_MAX_CONCURRENT: '10', SIM_MAX_IPM: String(PER_MINUTE) }, queues, worker });
  await stack.spawn('worker', worker);
}, 60_000);
afterAll(async () => stack?.close());

test(
  'a burst of 1,000 against an upstream allowing 10 at once and 600 a minute: all succeed, the upstream is never overrun',
  async () => {
    const { key, accountId } = await stack.newKey();
    const accepted = await Promise.all(Array.from({ length: CALLS }, () => generate(stack, key, undefined, { Prefer: 'respond-async' })));
    expect(accepted.every((res) => res.status === 202)).toBe(true);
    const pending = new Set(await Promise.all(accepted.map(async (res) => ((await res.json()) as { id: string }).id)));

    // the simulator answering its 1,000th call is the event. The pace makes that take 100 s or
    // more, however fast the machine: what fails here is no progress for stallMs, not slowness
    for (let answered = 0; answered < CALLS;) {
      const before = answered;
      answered = await waitFor(
        async () => {
          const count = (await stack.simStats()).statuses['200'] ?? 0;
          return count > before ? count : 0;
        },
        stallMs,
        `an upstream answer after ${before} of ${CALLS}`,
      );
    }
    // then each job's answer is read once (a job may still be storing its result: finalAnswer waits on 202)
    const statuses: number[] = [];
    const ids = [...pending];
    for (let i = 0; i < ids.length; i += 50) {
      const answers = await Promise.all(ids.slice(i, i + 50).map((id) => finalAnswer(stack.url, key, id)));
      answers.forEach((answer, j) => {
        statuses.push(answer.status);
        pending.delete(ids[i + j]!);
      });
    }
    const sim = await stack.simStats();
    const seen = JSON.stringify({ pending: pending.size, notOk: statuses.filter((s) => s !== 200), sim });
    expect(pending.size, seen).toBe(0);
    expect(
      statuses.filter((s) => s === 200),
      seen,
    ).toHaveLength(CALLS);
    expect(sim.maxInflight, seen).toBeLessThanOrEqual(10);
    expect(sim.statuses['429'], seen).toBeUndefined();
    expect(sim.statuses['200'], seen).toBe(CALLS);
    expect((await stack.account(accountId)).spent).toBe(CALLS * 30_000);
  },
  timeoutMs,
);
