import { z } from 'zod';
import { LANES, laneSchema } from '@relay/jobs';
import type { Queues } from '../jobs/queues.js';

/** The most accounts listed per lane (the busiest first); the lane totals count them all. */
const TOP_ACCOUNTS = 50;

const tallyRow = z.object({
  accountId: z.string(),
  jobs: z.number().int(),
  cost: z.number().describe('cost units: images, or seconds of audio'),
});

export const scheduleStatsSchema = z
  .object({
    queues: z.array(
      z.object({
        name: z.string(),
        lanes: z.array(
          z.object({
            lane: laneSchema,
            jobs: z.number().int(),
            cost: z.number(),
            accounts: z.array(tallyRow).describe(`the ${TOP_ACCOUNTS} accounts with the most pending cost`),
          }),
        ),
        running: z.array(tallyRow).describe('jobs handed to the workers, per account'),
        dispatching: z.number().int().describe('picked, not yet in BullMQ (about 0; more means promotions fail)'),
      }),
    ),
  })
  .meta({ id: 'ScheduleStats' });
export type ScheduleStatsAnswer = z.output<typeof scheduleStatsSchema>;

type Tally = Map<string, { count: number; cost: number }>;
const rows = (tally: Tally) =>
  [...tally]
    .map(([accountId, t]) => ({ accountId, jobs: t.count, cost: t.cost }))
    .sort((a, b) => b.cost - a.cost || b.jobs - a.jobs)
    .slice(0, TOP_ACCOUNTS);
const sum = (tally: Tally) =>
  [...tally.values()].reduce((s, t) => ({ jobs: s.jobs + t.count, cost: s.cost + t.cost }), { jobs: 0, cost: 0 });

/** Pending per lane and account and running per account, from each queue's fair scheduler. */
export async function readScheduleStats(queues: Queues): Promise<ScheduleStatsAnswer> {
  return {
    queues: await Promise.all(
      Object.entries(queues).map(async ([name, { scheduler }]) => {
        const stats = await scheduler.stats();
        return {
          name,
          lanes: LANES.map((lane) => ({ lane, ...sum(stats.pending[lane]), accounts: rows(stats.pending[lane]) })),
          running: rows(stats.running),
          dispatching: stats.dispatching,
        };
      }),
    ),
  };
}
