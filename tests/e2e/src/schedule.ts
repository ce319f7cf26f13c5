import type { Stack } from './stack-types.js';

type Tally = Array<{ accountId: string; jobs: number }>;

/** The account's jobs the scheduler of `queue` knows: pending in any lane, or handed to the workers. */
export async function scheduledJobs(stack: Stack, queue: string, accountId: string): Promise<number> {
  const { queues } = (await (await stack.admin('GET', '/schedule')).json()) as {
    queues: Array<{ name: string; lanes: Array<{ accounts: Tally }>; running: Tally }>;
  };
  const schedule = queues.find((q) => q.name === queue);
  const tallies = [...(schedule?.lanes.map((lane) => lane.accounts) ?? []), schedule?.running ?? []];
  return tallies.flat().reduce((sum, entry) => sum + (entry.accountId === accountId ? entry.jobs : 0), 0);
}
