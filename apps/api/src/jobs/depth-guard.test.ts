import { afterEach, expect, test, vi } from 'vitest';
import { createDepthGuard, ESTIMATE_REUSE_MS } from './depth-guard.js';
import type { QueueHandle } from './queues.js';

type Estimate = { position: number; startsInMs?: number };

/** A queue whose schedule answers each estimate when the test says, counting them. */
function schedule() {
  const asked: Array<(estimate: Estimate | Error) => void> = [];
  const handle = {
    scheduler: {
      hadRoomJustNow: () => false,
      estimate: () =>
        new Promise<Estimate>((resolve, reject) => asked.push((answer) => (answer instanceof Error ? reject(answer) : resolve(answer)))),
    },
  } as unknown as QueueHandle;
  return { guard: createDepthGuard(handle), asked };
}

const outcome = (check: Promise<void>) =>
  check.then(
    () => 'taken',
    (error: { code?: string }) => error.code,
  );

afterEach(() => vi.useRealTimers());

test('requests that come while an estimate is asked share it', async () => {
  const { guard, asked } = schedule();
  const checks = Array.from({ length: 5 }, () => outcome(guard(60_000, 'interactive', 'acct_a')));
  expect(asked).toHaveLength(1);
  asked[0]!({ position: 3, startsInMs: 3_000 });
  expect(await Promise.all(checks)).toEqual(Array(5).fill('taken'));
});

test('a reused estimate judges each request behind the ones it let through', async () => {
  const { guard, asked } = schedule();
  // ten jobs ahead, a second each: the 12th, 13th... would start after 12 s
  const first = outcome(guard(12_000, 'interactive', 'acct_a'));
  asked[0]!({ position: 10, startsInMs: 10_000 });
  expect(await first).toBe('taken');
  const next = [];
  for (let i = 0; i < 4; i++) next.push(await outcome(guard(12_000, 'interactive', 'acct_a')));
  expect(next).toEqual(['taken', 'taken', 'unavailable', 'unavailable']);
  expect(asked).toHaveLength(1);
  // another account, or another lane, is asked of its own
  void guard(12_000, 'interactive', 'acct_b');
  void guard(12_000, 'async', 'acct_a');
  expect(asked).toHaveLength(3);
});

test('an estimate with nothing ahead is not reused: the next request asks again', async () => {
  const { guard, asked } = schedule();
  const first = outcome(guard(1_000, 'interactive', 'acct_a'));
  asked[0]!({ position: 0, startsInMs: 0 });
  expect(await first).toBe('taken');
  const second = outcome(guard(1_000, 'interactive', 'acct_a'));
  expect(asked).toHaveLength(2);
  asked[1]!({ position: 15, startsInMs: 5_000 });
  expect(await second).toBe('unavailable');
});

test(`an estimate is asked again ${ESTIMATE_REUSE_MS} ms after it was taken, and after a failure`, async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  const { guard, asked } = schedule();
  const first = outcome(guard(60_000, 'interactive', 'acct_a'));
  asked[0]!({ position: 2, startsInMs: 1_000 });
  await first;
  vi.setSystemTime(Date.now() + ESTIMATE_REUSE_MS - 1);
  await guard(60_000, 'interactive', 'acct_a');
  expect(asked).toHaveLength(1);
  vi.setSystemTime(Date.now() + 1);
  const late = outcome(guard(60_000, 'interactive', 'acct_a'));
  expect(asked).toHaveLength(2);
  asked[1]!(new Error('redis away'));
  expect(await late).toBeUndefined();
  const after = outcome(guard(60_000, 'interactive', 'acct_a'));
  expect(asked).toHaveLength(3);
  asked[2]!({ position: 1, startsInMs: 500 });
  expect(await after).toBe('taken');
});
