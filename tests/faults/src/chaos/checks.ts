import type { Redis } from 'ioredis';
import { createRedis, QUEUE_NAMES } from '@relay/core';
import { waitFor } from '@relay/testkit';
import type { Stack } from '@relay/e2e';
import { recordDelivery, unfetchableFiles, type Deliveries } from '../invariants.js';

/**
 * Every job the ledger charged for gives its result back: GET /v1/jobs/{id} answers 200 and each
 * file it links is served. The links are recorded in `paid`, for the money check to hold the
 * charge to what was delivered.
 */
export async function paidResultProblems(stack: Stack, jobs: Array<{ jobId: string; key: string }>, paid: Deliveries) {
  const problems: string[] = [];
  for (const { jobId, key } of jobs) {
    const res = await fetch(`${stack.url}/v1/jobs/${jobId}`, { headers: { authorization: `Bearer ${key}`, 'x-goog-api-key': key } });
    const text = await res.text();
    if (res.status !== 200) problems.push(`job ${jobId} was charged, its result answers ${res.status}: ${text.slice(0, 200)}`);
    else recordDelivery(paid, res, text);
  }
  return [...problems, ...(await unfetchableFiles(stack.url, paid))];
}

/** Every capability's queue, as a key's part names it: one added later keeps its bookkeeping too. */
const QUEUES = QUEUE_NAMES.join('|');

/**
 * Keys a relay keeps for good (its accounts, keys, ledgers, channels, batches, uploaded files'
 * records, the queues' and the schedule's bookkeeping), by shape: ids and numbers read `*`.
 * Anything else without an expiry is something a request or a crash left behind.
 */
const KEPT = [
  /^accounts(:names|:search|:backfilled|:names:backfilled)?$/,
  /^account:\*(:keys)?$/,
  /^(key|keyhash|ledger):\*$/,
  /^channels(:version)?$/,
  /^(channel|chh):(ark|gemini)$/,
  // a channel's, a group's or a pool's leases: each ends by its score, the next pick of the set
  // drops those past it, and a channel's go with it; a set holds at most a lease term's calls
  /^cap:(ch|grp|pool):[^:]+$/,
  /^batch:\*$/,
  /^batches:(all|\*)$/,
  /^files?:\*$/,
  new RegExp(`^bull:(${QUEUES}|webhooks|batches):(id|meta|events|completed|failed)$`),
  new RegExp(`^sched:(${QUEUES}):(alive|concurrency|recent|cap)$`),
];

/** A key's shape: its parts after the prefix, those carrying an id or a number read `*`. */
const shapeOf = (key: string, prefix: string) =>
  key
    .slice(prefix.length + 1)
    .split(':')
    .map((part) => (/\d/.test(part) && (part.length >= 8 || /^\d+$/.test(part)) ? '*' : part))
    .join(':');

/** What the relay left in Redis that it should not have kept: one pass over the prefix's keys. */
async function leftovers(client: Redis, prefix: string): Promise<string[]> {
  const problems: string[] = [];
  const unknown = new Map<string, number>();
  for await (const batch of client.scanStream({ match: `${prefix}:*`, count: 500 }) as AsyncIterable<string[]>) {
    for (const key of batch) {
      const shape = shapeOf(key, prefix);
      if ((await client.pttl(key)) !== -1) {
        // a key with an expiry goes on its own; a reservation must be closed by then
        if (shape === 'reservation:*' && ['reserved', 'started'].includes((await client.hget(key, 'state')) ?? ''))
          problems.push(`${key} is still open`);
        continue;
      }
      const job = /^bull:(\w+):\*$/.exec(shape);
      if (job) {
        // a job record is kept until BullMQ's age limit removes it from its ended set, and so only while it is in one
        const id = key.split(':').at(-1)!;
        const ended = await Promise.all(['completed', 'failed'].map((set) => client.zscore(`${prefix}:bull:${job[1]}:${set}`, id)));
        if (ended.every((score) => score === null)) problems.push(`${key}: a job record in no ended set, kept for ever`);
        continue;
      }
      if (shape === 'reservation:*') problems.push(`${key} has no expiry`);
      else if (!KEPT.some((kept) => kept.test(shape))) unknown.set(shape, (unknown.get(shape) ?? 0) + 1);
    }
  }
  for (const [shape, n] of unknown) problems.push(`${n} key(s) ${prefix}:${shape} kept with no expiry`);
  return problems;
}

/**
 * Nothing left in Redis beyond its retention, once the relay is idle: no reservation open, no
 * job in the schedule (pending, dispatching or holding a place), every job record in an ended set,
 * and no key without an expiry outside the relay's lasting records. The relay tidies some of this
 * itself a little later (a crashed worker's places are recovered), so the check waits for it.
 */
export async function redisProblems(stack: Stack, timeoutMs = 90_000): Promise<string[]> {
  // through the relay's own connection code: the URL may name sentinels
  const client = createRedis(stack.redis.url, 'patient');
  const prefix = stack.env.REDIS_PREFIX!;
  let problems: string[] = [];
  try {
    await waitFor(
      async () => {
        problems = await leftovers(client, prefix);
        return problems.length === 0;
      },
      timeoutMs,
      'Redis to hold nothing beyond its retention',
    );
    return [];
  } catch (error) {
    // what the last look found; a Redis that could not be read at all is a problem too
    return problems.length ? problems : [(error as Error).message];
  } finally {
    client.disconnect();
  }
}
