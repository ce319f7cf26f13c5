import { Queue } from 'bullmq';
import { createRedis, waitForRedis } from '@relay/core';
import { bullPrefix, QUEUES } from '@relay/jobs';

export interface RedisSurvey {
  accounts: number;
  jobs: number;
}

/**
 * What a Redis the launcher did not start already holds under the relay's prefix: the accounts
 * the api's listing index names (`{prefix}:accounts`, apps/api/src/auth/account-index.ts) and the
 * jobs of every state in the relay's queues. A newcomer then knows whose data the console shows.
 */
export async function surveyRedis(url: string, prefix: string): Promise<RedisSurvey> {
  const redis = createRedis(url, 'fail-fast', 'relay-launcher');
  try {
    await waitForRedis(redis, 5_000);
    const accounts = await redis.zcard(`${prefix}:accounts`);
    let jobs = 0;
    for (const name of Object.values(QUEUES)) {
      const queue = new Queue(name, { connection: redis, prefix: bullPrefix(prefix), skipMetasUpdate: true });
      const counts = await queue.getJobCounts();
      jobs += Object.values(counts).reduce((sum, n) => sum + n, 0);
      await queue.close();
    }
    return { accounts, jobs };
  } finally {
    redis.disconnect();
  }
}
