import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { QUEUE_NAMES, redisConnectionOptions } from '@relay/core';
import { bullPrefix, capabilityOfJobId, parseFileId } from '@relay/jobs';
import type { LedgerEntry } from '@relay/billing';
import { waitFor } from '@relay/testkit';
import type { Stack } from '@relay/e2e';

/**
 * What must hold after a relay went through faults, shared by the soak (a fixed list of faults)
 * and the seeded chaos runs. Each check returns the problems it found (empty when it holds), so
 * a test can expect `[]` and a runner can print them.
 */
export const IMAGE_PRICE = 30_000;

/** File links a client was given, by job id. */
export type Deliveries = Map<string, string[]>;

/** Statuses a relay under faults may answer: 500 never; anything else a client cannot act on is a problem. */
export const ACCEPTABLE_STATUSES = ['200', '202', '400', '409', '502', '503', 'connection'];

export const statusProblems = (statuses: Record<string, number>, acceptable = ACCEPTABLE_STATUSES) =>
  Object.entries(statuses)
    .filter(([status]) => !acceptable.includes(status))
    .map(([status, n]) => `${n} answers with status ${status}`);

/** The job id and file links of a 200 answer: image links name their job, speech sends its WAV link. */
export function recordDelivery(delivered: Deliveries, res: Response, text: string) {
  const audio = res.headers.get('x-relay-audio-url');
  if (audio) {
    delivered.set(parseFileId(audio.split('/files/')[1]!)!.jobId, [audio]);
    return;
  }
  const urls = ((JSON.parse(text) as { data?: Array<{ url: string }> }).data ?? []).map((d) => d.url);
  if (urls.length) delivered.set(parseFileId(urls[0]!.split('/files/')[1]!)!.jobId, urls);
}

/** The relay's queues, opened on the stack's Redis, for as long as `use` runs. */
export async function withQueues<T>(
  stack: Stack,
  use: (stateOf: (id: string) => Promise<string>, queues: Queue[], describe: (id: string) => Promise<string>) => Promise<T>,
) {
  const queues = QUEUE_NAMES.map(
    (name) =>
      new Queue(name, { connection: redisConnectionOptions(stack.redis.url, 'patient'), prefix: bullPrefix(stack.env.REDIS_PREFIX!) }),
  );
  // a job's queue is its capability's, named by its id's prefix
  const queueOf = (id: string) => queues[QUEUE_NAMES.indexOf(capabilityOfJobId(id)?.id ?? QUEUE_NAMES[0]!)]!;
  /** Where a job stands, for a failure's message: BullMQ's state and counts, and its place in the schedule. */
  const describe = async (id: string) => {
    const queue = queueOf(id);
    const [state, job] = await Promise.all([queue.getJobState(id), queue.getJob(id)]);
    const S = `${stack.env.REDIS_PREFIX!}:sched:${queue.name}`;
    const client = new Redis(redisConnectionOptions(stack.redis.url, 'patient'));
    const [running, queued] = await Promise.all([client.hget(`${S}:running`, id), client.hget(`${S}:jobs`, id)]).finally(() =>
      client.disconnect(),
    );
    const told = job
      ? `attempts made ${job.attemptsMade}, started ${job.attemptsStarted}, stalled ${job.stalledCounter}, ` +
        `processed ${job.processedOn ?? '-'}, finished ${job.finishedOn ?? '-'}, failed reason ${job.failedReason || '-'}`
      : 'no job hash';
    return `state ${state}; ${told}; schedule: running ${running ?? '-'}, queued ${queued ?? '-'}`;
  };
  try {
    return await use((id) => queueOf(id).getJobState(id), queues, describe);
  } finally {
    await Promise.all(queues.map((q) => q.close()));
  }
}

/** Waits until every job of `ids` is completed or failed and the queues hold nothing waiting or running; the ones that did not. */
export async function unfinishedJobs(stack: Stack, ids: Iterable<string>, timeoutMs = 120_000): Promise<string[]> {
  return withQueues(stack, async (stateOf, queues, describe) => {
    const all = [...ids];
    const pending = async () => {
      const states = await Promise.all(all.map(stateOf));
      return all.filter((_, i) => states[i] !== 'completed' && states[i] !== 'failed');
    };
    try {
      await waitFor(async () => (await pending()).length === 0, timeoutMs, 'every accepted job to finish');
      await waitFor(
        async () => {
          const counts = await Promise.all(queues.map((q) => q.getJobCounts('active', 'wait', 'delayed', 'prioritized')));
          return counts.every((c) => Object.values(c).every((n) => n === 0));
        },
        timeoutMs,
        'the queues to drain',
      );
      return [];
    } catch (error) {
      const left = await pending();
      if (!left.length) return [(error as Error).message];
      return Promise.all(left.map(async (id) => `job ${id} never finished (${await describe(id)})`));
    }
  });
}

/** Links among `delivered` the store does not serve; asked of `base` (behind PUBLIC_URL every api process serves every link). */
export async function unfetchableFiles(base: string, delivered: Deliveries): Promise<string[]> {
  const problems: string[] = [];
  for (const [jobId, urls] of delivered) {
    for (const url of urls) {
      const status = (await fetch(`${base}${new URL(url).pathname}`)).status;
      if (status !== 200) problems.push(`job ${jobId}: its file ${url} answers ${status}`);
    }
  }
  return problems;
}

/** An account's whole ledger, newest first, page by page (an account of a long run holds more than one page). */
export async function fullLedger(stack: Stack, accountId: string): Promise<LedgerEntry[]> {
  const entries: LedgerEntry[] = [];
  for (let cursor: string | null = ''; cursor !== null;) {
    const page = (await (
      await stack.admin('GET', `/accounts/${accountId}/usage?limit=1000${cursor ? `&cursor=${cursor}` : ''}`)
    ).json()) as {
      entries: LedgerEntry[];
      nextCursor: string | null;
    };
    entries.push(...page.entries);
    cursor = page.nextCursor;
  }
  return entries;
}

/** The ledger's entries by job. */
export function entriesByJob(ledger: LedgerEntry[]): Map<string, LedgerEntry[]> {
  const byJob = new Map<string, LedgerEntry[]>();
  for (const entry of ledger.filter((e) => e.jobId)) byJob.set(entry.jobId, [...(byJob.get(entry.jobId) ?? []), entry]);
  return byJob;
}

/**
 * Money: every reservation closed once (those of requests whose api died between reserving and
 * queueing by the sweeper); the ledger sums to the balance and its charges to what was spent; a
 * job is reserved once and then settled or released, never both (a batch line, whose money its
 * batch reserved, is only settled or released); a job a client was given files of was settled,
 * an image job charged for exactly the images delivered.
 */
export async function moneyProblems(
  stack: Stack,
  accountId: string,
  delivered: Deliveries,
  batchLines: ReadonlySet<string> = new Set(),
  timeoutMs = 60_000,
): Promise<string[]> {
  try {
    await waitFor(async () => (await stack.account(accountId)).reserved === 0, timeoutMs, `every reservation of ${accountId} to close`);
  } catch (error) {
    return [(error as Error).message];
  }
  const { balance, spent } = await stack.account(accountId);
  const ledger = await fullLedger(stack, accountId);
  const problems: string[] = [];
  const sum = ledger.reduce((total, e) => total + e.amount, 0);
  if (sum !== balance) problems.push(`${accountId}: the ledger sums to ${sum}, the balance is ${balance}`);
  const charged = ledger.filter((e) => e.type === 'settle').reduce((total, e) => total + e.charged, 0);
  if (charged !== spent) problems.push(`${accountId}: the ledger's charges sum to ${charged}, spent is ${spent}`);
  for (const [jobId, entries] of entriesByJob(ledger)) {
    const types = entries.map((e) => e.type).sort();
    const closed = types.includes('settle') ? 'settle' : 'release';
    const expected = batchLines.has(jobId) ? [closed] : [closed, 'reserve'].sort();
    if (types.join() !== expected.join()) problems.push(`job ${jobId}: ledger entries ${types.join(', ')}`);
    const files = delivered.get(jobId);
    if (!files) continue;
    const settle = entries.find((e) => e.type === 'settle');
    if (!settle) problems.push(`job ${jobId}: delivered ${files.length} files, but its money was given back`);
    else if (jobId.startsWith('img_') && settle.charged !== files.length * IMAGE_PRICE)
      problems.push(`job ${jobId}: delivered ${files.length} images, charged ${settle.charged}`);
  }
  return problems;
}
