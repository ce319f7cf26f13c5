import { ChannelsCooling } from '@relay/channels';
import type { MetaJob } from '@relay/jobs';
import { stoppedError, type JobLife } from '@relay/life';

/**
 * An upstream call that may find every channel cooling: a job its owner stopped ends then, rather
 * than waiting for a channel (up to a quota's probe time) only to be refused at its begin. Read
 * only on that path, so a job's usual run pays no extra round trip.
 */
export async function unlessStopped<T>(job: MetaJob, life: Pick<JobLife, 'stopping'>, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ChannelsCooling && (await life.stopping(job))) throw stoppedError();
    throw error;
  }
}
