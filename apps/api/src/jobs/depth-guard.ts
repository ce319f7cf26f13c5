import { AppError } from '@relay/core';
import type { Lane } from '@relay/jobs';
import type { QueueHandle } from './queues.js';

/** How long an estimate of where an account's next job in a lane would stand serves the requests after it. */
export const ESTIMATE_REUSE_MS = 1_000;

type Estimate = Awaited<ReturnType<QueueHandle['scheduler']['estimate']>>;

interface Asked {
  at: number;
  estimate: Promise<Estimate>;
  settled?: Estimate;
  /** Requests this estimate let through so far: each stands before the next one judged by it. */
  passed: number;
}

/**
 * Refuses a synchronous request whose job could not even start within the caller's wait
 * budget, judged by where that job would stand in the schedule: behind higher lanes, its own
 * account's earlier jobs and the others' fair shares of its lane, not behind the total backlog
 * of other accounts or lower lanes. Asynchronous callers are never refused (the queue is
 * durable), nor is anyone while no job finished lately (no pace to judge by), nor while this
 * process's last admission found room in the schedule (nothing to wait behind: no Redis read).
 *
 * A burst of one account's requests asks Redis once, not once per request: the estimate's script
 * reads up to 500 of the account's jobs ahead, and 10,000 requests at once, each asking, kept
 * Redis busy for seconds, with every admission and the workers' lock renewals waiting behind it
 * (npm run bench, scale). Requests that come while an estimate is asked share it; one that comes
 * within `ESTIMATE_REUSE_MS` after it, when it found jobs ahead, is judged by it too, standing
 * behind the requests it let through since (position and wait grown in proportion). An estimate
 * with nothing ahead says nothing of how long each job takes: the next request asks again.
 */
export function createDepthGuard(handle: QueueHandle) {
  const asked = new Map<string, Asked>();

  const estimateFor = (lane: Lane, accountId: string): Asked => {
    const key = `${lane} ${accountId}`;
    const now = Date.now();
    const known = asked.get(key);
    if (known && (!known.settled || (known.settled.position > 0 && now - known.at < ESTIMATE_REUSE_MS))) return known;
    if (asked.size >= 1_024) for (const [k, old] of asked) if (old.settled && now - old.at >= ESTIMATE_REUSE_MS) asked.delete(k);
    const fresh: Asked = { at: now, estimate: handle.scheduler.estimate(lane, accountId), passed: 0 };
    asked.set(key, fresh);
    fresh.estimate.then(
      (estimate) => void (fresh.settled = estimate),
      () => asked.get(key) === fresh && asked.delete(key),
    );
    return fresh;
  };

  return async function checkDepth(budgetMs: number, lane: Lane, accountId: string) {
    if (budgetMs <= 0 || handle.scheduler.hadRoomJustNow()) return;
    const judge = estimateFor(lane, accountId);
    const estimate = await judge.estimate;
    const ahead = judge.passed;
    const position = estimate.position + ahead;
    const startsInMs =
      estimate.startsInMs === undefined || estimate.position === 0
        ? estimate.startsInMs
        : (estimate.startsInMs * position) / estimate.position;
    if (startsInMs === undefined || startsInMs <= budgetMs) {
      judge.passed += 1;
      return;
    }
    throw new AppError(
      'unavailable',
      `${position} jobs would start before this one, which would not start within the ${Math.round(budgetMs / 1000)} s wait; retry later or send Prefer: respond-async`,
      { retryAfterMs: Math.min(Math.max(startsInMs - budgetMs, 1_000), 120_000) },
    );
  };
}

export type DepthGuard = ReturnType<typeof createDepthGuard>;
