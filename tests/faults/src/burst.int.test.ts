import { afterAll, beforeAll, expect, test } from 'vitest';
import { waitFor } from '@relay/testkit';
import { startStack, type Stack } from '@relay/e2e';
import { finalAnswer, generate } from './helpers.js';

const limits = { IMAGES_MAX_CONCURRENT: '10', IMAGES_MAX_PER_MINUTE: '600', IMAGES_CONCURRENCY: '16' };
let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ simulator: { SIM_MAX_CONCURRENT: '10', SIM_MAX_IPM: '600' }, worker: limits });
  await stack.spawn('worker', limits);
}, 60_000);
afterAll(async () => stack?.close());

test('a burst of 1,000 against an upstream allowing 10 at once and 600 a minute: all succeed, the upstream is never overrun', async () => {
  const { key, accountId } = await stack.newKey();
  const accepted = await Promise.all(Array.from({ length: 1_000 }, () => generate(stack, key, undefined, { Prefer: 'respond-async' })));
  expect(accepted.every((res) => res.status === 202)).toBe(true);
  const pending = new Set(await Promise.all(accepted.map(async (res) => ((await res.json()) as { id: string }).id)));

  // the simulator answering its 1,000th call is the event; then each job's answer is read once
  // (a job may still be storing its result: finalAnswer waits on 202)
  await waitFor(async () => ((await stack.simStats()).statuses['200'] ?? 0) >= 1_000, 170_000, '1,000 calls answered by the upstream');
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
  ).toHaveLength(1_000);
  expect(sim.maxInflight, seen).toBeLessThanOrEqual(10);
  expect(sim.statuses['429'], seen).toBeUndefined();
  expect(sim.statuses['200'], seen).toBe(1_000);
  expect((await stack.account(accountId)).spent).toBe(1_000 * 30_000);
}, 200_000);
