import { AppError } from '@relay/core';
import type { Lane } from '@relay/jobs';
import type { QueueHandle } from './queues.js';

/**
 * Refuses a synchronous request whose job could not even start within the caller's wait
 * budget, judged by where that job would stand in the schedule: behind higher lanes, its own
 * account's earlier jobs and the others' fair shares of its lane, not behind the total backlog
 * of other accounts or lower lanes. Asynchronous callers are never refused (the queue is
 * durable), nor is anyone while no job finished lately (no pace to judge by), nor while this
 * process's last admission found room in the schedule (nothing to wait behind: no Redis read).
 */
export function createDepthGuard(handle: QueueHandle) {
  return async function checkDepth(budgetMs: number, lane: Lane, accountId: string) {
    if (budgetMs <= 0 || handle.scheduler.hadRoomJustNow()) return;
    const { position, startsInMs } = await handle.scheduler.estimate(lane, accountId);
    if (startsInMs === undefined || startsInMs <= budgetMs) return;
    throw new AppError(
      'unavailable',
      `${position} jobs would start before this one, which would not start within the ${Math.round(budgetMs / 1000)} s wait; retry later or send Prefer: respond-async`,
      { retryAfterMs: Math.min(Math.max(startsInMs - budgetMs, 1_000), 120_000) },
    );
  };
}

export type DepthGuard = ReturnType<typeof createDepthGuard>;
