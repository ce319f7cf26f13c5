import { AppError } from '@relay/core';
import type { QueueHandle } from './queues.js';

const WINDOW_MS = 30_000;
/** Fewer finished jobs than this say too little about the pace to refuse anyone. */
const MIN_SAMPLE = 5;

/**
 * Refuses a synchronous request whose job could not even start within the caller's wait
 * budget: the jobs ahead of it, divided by how fast this queue has been finishing jobs lately
 * (as seen by this process's queue events).
 * Asynchronous callers are never refused (the queue is durable), nor is anyone while no job
 * has finished lately (no rate to judge by).
 */
export function createDepthGuard(handle: QueueHandle) {
  const finished: number[] = [];
  const record = () => {
    const now = Date.now();
    finished.push(now);
    while (finished.length && finished[0]! < now - WINDOW_MS) finished.shift();
  };
  handle.events.on('completed', record);
  handle.events.on('failed', record);

  return async function checkDepth(budgetMs: number) {
    if (budgetMs <= 0) return;
    const now = Date.now();
    while (finished.length && finished[0]! < now - WINDOW_MS) finished.shift();
    if (finished.length < MIN_SAMPLE) return;
    const counts = await handle.queue.getJobCounts('wait', 'prioritized', 'delayed');
    const ahead = (counts.wait ?? 0) + (counts.prioritized ?? 0) + (counts.delayed ?? 0);
    // the pace over the time actually observed, not the whole window (a burst has just begun)
    const perMs = finished.length / Math.max(1_000, now - finished[0]!);
    const startsInMs = ahead / perMs;
    if (startsInMs > budgetMs) {
      throw new AppError(
        'unavailable',
        `the queue holds ${ahead} jobs and would not reach this one within the ${Math.round(budgetMs / 1000)} s wait; retry later or send Prefer: respond-async`,
        { retryAfterMs: Math.min(Math.max(startsInMs - budgetMs, 1_000), 120_000) },
      );
    }
  };
}

export type DepthGuard = ReturnType<typeof createDepthGuard>;
