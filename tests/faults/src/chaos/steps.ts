import type { LocalRedis } from '@relay/testkit';
import type { Stack } from '@relay/e2e';
import { cancelBatch, startBatch, type BatchRun } from './batches.js';
import type { Cluster } from './cluster.js';
import type { Action } from './schedule.js';
import { ANSWER_DEADLINE_MS, type Account, type Traffic } from './traffic.js';

/** What a step acts on. */
export interface Run {
  stack: Stack;
  cluster: Cluster;
  traffic: Traffic;
  accounts: Account[];
  batches: BatchRun[];
  /** Where a step says how far it got: a step stuck midway shows where. */
  log: (line: string) => void;
}

/**
 * Does one step of the schedule; it returns once the step is over (an outage ended, a paused
 * process woke, its clients left). Which account and api process a step uses follows from its
 * index, so a replay makes the same choices.
 */
export async function act(run: Run, index: number, action: Action): Promise<void> {
  const { stack, cluster, traffic } = run;
  const account = run.accounts[index % run.accounts.length]!;
  const base = cluster.bases()[index % 2]!;
  switch (action.do) {
    case 'mix':
      traffic.mix = action.mix;
      return;
    case 'upstream':
      return stack.fault(action.fault);
    case 'kill':
    case 'restart':
      return cluster.replace(action.app, action.which, action.do === 'kill' ? 'SIGKILL' : 'SIGTERM');
    case 'pause': {
      const pid = action.target === 'worker' ? cluster.workers[action.which]!.child.pid! : (stack.redis as LocalRedis).pid()!;
      return cluster.pause(pid, action.ms);
    }
    case 'store-outage':
    case 'redis-outage': {
      const server = action.do === 'store-outage' ? stack.s3 : stack.redis;
      await server.stop();
      run.log(`  stopped at answer ${traffic.answers.count}`);
      try {
        await traffic.answers.more(action.answers);
      } finally {
        await server.start!();
      }
      run.log(`  started again at answer ${traffic.answers.count}`);
      return;
    }
    case 'failover':
      await stack.sentinel!.failOver();
      return;
    case 'depart': {
      const leave = new AbortController();
      const sent = Array.from({ length: action.requests }, (_, i) =>
        traffic.send(i % 2 ? 'speech' : 'image', cluster.bases()[i % 2]!, account, `depart ${index}.${i}`, leave.signal),
      );
      if (action.after === 0) setImmediate(() => leave.abort());
      else await traffic.answers.more(action.after).finally(() => leave.abort());
      await Promise.all(sent);
      return;
    }
    case 'cancel': {
      const ids = await Promise.all(
        Array.from({ length: action.jobs }, (_, i) => traffic.send('image-async', base, account, `cancel ${index}.${i}`)),
      );
      await traffic.answers.more(action.after);
      for (const id of ids.filter((id) => id !== undefined)) {
        try {
          const res = await fetch(`${base}/v1/jobs/${id}/cancel`, {
            method: 'POST',
            headers: { authorization: `Bearer ${account.key}` },
            signal: AbortSignal.timeout(ANSWER_DEADLINE_MS),
          });
          traffic.note(String(res.status), `cancel of ${id} answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
        } catch (error) {
          traffic.note('connection', String(error));
        }
      }
      return;
    }
    case 'batch': {
      const batch = await startBatch(traffic, base, account, action.api, action.lines, index);
      if (!batch) return;
      run.batches.push(batch);
      if (action.cancelAfter === undefined) return;
      await traffic.answers.more(action.cancelAfter);
      await cancelBatch(traffic, base, batch);
      return;
    }
  }
}
