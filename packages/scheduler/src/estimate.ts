import type { Redis } from 'ioredis';
import { LANES, type Lane } from '@relay/jobs';
import { snapshotScript } from './commands.js';

export interface StartEstimate {
  /** Jobs that will start before this one, as the schedule stands. */
  position: number;
  /** When it should start, from the pace jobs finish at (observed over the last minute, or in flight / time held); unknown without one. */
  startsInMs?: number;
}

const MIN_SAMPLE = 5;

interface Keys {
  S: string;
  A: string;
}

/**
 * Where a job stands in the schedule: behind what waits in BullMQ, everything pending in higher
 * lanes and its own account's earlier jobs; while those are served every other account of its
 * lane gets its weighted share too (at least one turn). `jobId` undefined asks for a job about to
 * be enqueued (the depth guard judges a caller by that, not by everyone's backlog).
 */
export async function estimateStart(
  redis: Redis,
  keys: Keys,
  quantum: number,
  lane: Lane,
  accountId: string,
  jobId?: string,
): Promise<StartEstimate> {
  const { waiting, higherCost, own, others, done, spanMs, finished, higherCount, rank, weight, inFlight, heldMs } = await snapshotScript(
    redis,
    { jobs: `${keys.S}:jobs` },
    { S: keys.S, A: keys.A, lanes: LANES.join(' '), lane, account: accountId, jobId: jobId ?? '' },
  );
  if (rank < 0) return { position: 0, startsInMs: 0 };
  let othersCost = 0;
  let othersCount = 0;
  for (let i = 0; i < others.length; i += 3) {
    const [cost, count, w] = [Number(others[i]), Number(others[i + 1]), Number(others[i + 2]) || 1];
    // while this account's `own` is served, each other one gets its share, and at least a turn
    const share = Math.min(cost, ((own + quantum * weight) * w) / weight);
    othersCost += share;
    othersCount += cost > 0 ? Math.max(1, Math.round((count * share) / cost)) : 0;
  }
  const aheadCost = waiting * quantum + higherCost + own + othersCost;
  // Finishes counted over the time observed say too little when a burst has just begun (the
  // first few trickle in); what is handed out finishes, by Little's law, at in flight / time held.
  const pace = Math.max(done / spanMs, heldMs > 0 ? inFlight / heldMs : 0);
  return {
    position: waiting + higherCount + rank + othersCount,
    // fewer finished jobs than this say too little about the pace to promise (or refuse) anything
    ...(finished >= MIN_SAMPLE ? { startsInMs: Math.round(aheadCost / pace) } : {}),
  };
}
