import { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { expect, test } from 'vitest';
import { startSentinelSet, waitFor } from '@relay/testkit';
import { createLogger } from './logger.js';
import { createReplication } from './redis-replicated.js';

const log = createLogger('test', 'silent');

async function outcomes(registry: Registry) {
  const metric = await registry.getSingleMetric('relay_replication_waits_total')!.get();
  return Object.fromEntries(metric.values.map((v) => [v.labels.outcome, v.value]));
}

test('a single Redis: nothing to wait for, no connection made', async () => {
  // port 1 answers nothing: a connection attempt would fail the start
  const replication = await createReplication('redis://127.0.0.1:1', 'relay-wait-test', log);
  await replication.replicated();
  replication.mustBeAbleToWait();
  replication.close();
});

test('behind Sentinel: waits for the replica; past the bound answers and stops waiting; waits again once it acknowledges', async () => {
  const set = await startSentinelSet('wait-test');
  const registry = new Registry();
  const replication = await createReplication(set.url, 'relay-wait-test', log, registry);
  try {
    await Promise.all([replication.replicated(), replication.replicated(), replication.replicated()]);
    expect(await outcomes(registry)).toEqual({ acknowledged: 3 });

    await set.cutReplication();
    await replication.replicated();
    expect(await outcomes(registry)).toMatchObject({ timed_out: 1 });
    // behind: answered at once, a round still running to notice the replica's return
    await replication.replicated();
    expect(await outcomes(registry)).toMatchObject({ skipped: 1 });

    // the replica may authenticate again: it reconnects, and answers wait for it again
    const replica = new Redis(set.servers[1]!.url);
    await replica.config('SET', 'masterauth', '');
    replica.disconnect();
    await waitFor(
      async () => {
        await replication.replicated();
        return (await outcomes(registry)).acknowledged! > 3;
      },
      30_000,
      'a replica acknowledging again',
    );
  } finally {
    replication.close();
    await set.close();
  }
}, 60_000);
