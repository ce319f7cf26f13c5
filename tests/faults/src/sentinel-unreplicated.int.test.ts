import { afterAll, beforeAll, expect, test } from 'vitest';
import type { LedgerEntry } from '@relay/billing';
import { parseFileId } from '@relay/jobs';
import { waitFor } from '@relay/testkit';
import { startStack, type Stack } from '@relay/e2e';
import { FAILOVER_TUNING } from './knobs.js';
import { IMAGE, finalAnswer, generate, untilSimHolding } from './helpers.js';

/**
 * The writes the old primary acknowledged but never replicated (docs/guarantees.md, "Nothing lost
 * across a Redis failover"). Under load, the replica is cut off from the primary, more requests
 * come (their jobs, money and Idempotency-Keys reach the primary alone), and the primary is
 * killed: the sentinels promote a replica that never saw them. A relay that answered them (202)
 * would have promised jobs that no longer exist; the relay waits for a replica before it answers,
 * so they are told 503 and retried. Then: every accepted job ends, every delivered file downloads,
 * no Idempotency-Key runs twice, and the money is exact to the unit.
 */
let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ sentinel: true, tuning: FAILOVER_TUNING });
}, 120_000);
afterAll(async () => stack?.close());

/** Per the catalog: one image of the test model. */
const IMAGE_PRICE = 30_000;

interface Answer {
  status: number;
  /** The job the answer names: a 202's id, a 200's from its file links. */
  jobId?: string;
  urls: string[];
}

test('the primary dies with writes it never replicated: none of them was promised, nothing accepted is lost, the money is exact', async () => {
  const set = stack.sentinel!;
  const { key, accountId } = await stack.newKey();
  const accepted = new Map<string, string[]>(); // job id -> its delivered file links
  const keyed = new Map<string, Set<string>>(); // Idempotency-Key -> the jobs its answers named
  const statuses: number[] = [];

  async function ask(idem: string | undefined, async: boolean): Promise<Answer> {
    const headers = { ...(idem ? { 'Idempotency-Key': idem } : {}), ...(async ? { prefer: 'respond-async' } : {}) };
    const res = await generate(stack, key, IMAGE, headers);
    statuses.push(res.status);
    if (res.status === 503) expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    if (res.status !== 200 && res.status !== 202) return { status: res.status, urls: [] };
    const body = (await res.json()) as { id?: string; data?: Array<{ url: string }> };
    const urls = (body.data ?? []).map((d) => d.url);
    const jobId = res.status === 202 ? body.id! : parseFileId(urls[0]!.split('/files/')[1]!)!.jobId;
    if (!accepted.has(jobId) || urls.length) accepted.set(jobId, urls);
    if (idem) keyed.set(idem, (keyed.get(idem) ?? new Set()).add(jobId));
    return { status: res.status, jobId, urls };
  }
  /** Asks again with the same key after a 503 (the answer the relay gives while no primary is known). */
  const untilAccepted = (idem: string, async: boolean) =>
    waitFor(
      async () => {
        const answer = await ask(idem, async);
        return answer.status === 200 || answer.status === 202 ? answer : undefined;
      },
      60_000,
      `${idem} accepted`,
    );

  // 1. replication healthy: synchronous and async jobs, with and without a key, done
  for (const idem of ['a-0', 'a-1']) expect((await ask(idem, false)).status).toBe(200);
  const early = [await ask('b-0', true), await ask('b-1', true), await ask(undefined, true)];
  expect(early.map((a) => a.status)).toEqual([202, 202, 202]);
  for (const { jobId } of early) expect((await finalAnswer(stack.url, key, jobId!)).status).toBe(200);
  // four at the vendor: two to end while the replica is cut off, two when the primary is dead
  await stack.fault({ type: 'hold', api: 'images', times: 4 });
  const endingSync = ask('e-sync', false);
  const endingAsync = await ask('e-async', true);
  expect(endingAsync.status).toBe(202);
  await untilSimHolding(stack, 2);
  const heldSync = ask('c-sync', false);
  expect((await ask('c-async', true)).status).toBe(202);
  await untilSimHolding(stack, 4);

  // 2. the replica cut off; more requests, each reaching the primary alone and its vendor
  await set.cutReplication();
  await stack.fault({ type: 'hold', api: 'images', times: 6 });
  const unreplicated = [
    ...['d-0', 'd-1', 'd-2'].map((idem) => ({ idem, async: true })),
    { idem: undefined, async: true },
    { idem: undefined, async: true },
    { idem: 'd-sync', async: false },
  ];
  const answered = unreplicated.map(({ idem, async }) => ask(idem, async));
  // the two held longest end now, on the primary alone (a GET reads the end there)
  expect(await stack.release(2)).toBe(2);
  await finalAnswer(stack.url, key, endingAsync.jobId!);
  await untilSimHolding(stack, 2 + unreplicated.length);

  // 3. the primary dies; the sentinels promote the replica, which never saw step 2
  const { from, to } = await set.failOver();
  expect(to).not.toBe(from);
  expect(await stack.release()).toBe(2 + unreplicated.length);
  // until the relay is served by the new primary, 503 + Retry-After (checked in ask), never a 500
  await waitFor(async () => (await ask(undefined, false)).status === 200, 60_000, 'a request served by the new primary');
  const unreplicatedAnswers = await Promise.all(answered);
  // what a client of step 2 was told is its to keep; one told to retry does, with its key
  for (const [i, { idem, async }] of unreplicated.entries())
    if (idem && unreplicatedAnswers[i]!.status === 503) await untilAccepted(idem, async);
  for (const [idem, answer] of [
    ['c-sync', heldSync],
    ['e-sync', endingSync],
  ] as const)
    if ((await answer).status === 503) await untilAccepted(idem, false);
  expect(statuses.filter((s) => s !== 200 && s !== 202 && s !== 503)).toEqual([]);

  // 4. every accepted job ends, completed, as it was answered (an end told is the end kept), and
  // every file it delivered downloads
  for (const [jobId, urls] of accepted) {
    const final = await finalAnswer(stack.url, key, jobId);
    expect(final.status, `job ${jobId}`).toBe(200);
    const links = ((final.body.data ?? []) as Array<{ url: string }>).map((d) => d.url);
    if (urls.length) expect(links, `job ${jobId} as answered`).toEqual(urls);
    expect(links.length, `job ${jobId}'s files`).toBeGreaterThan(0);
    accepted.set(jobId, links);
    for (const url of links) expect((await fetch(`${stack.url}${new URL(url).pathname}`)).status, url).toBe(200);
  }

  // 5. no Idempotency-Key ran twice: each named one job, and asking again runs nothing
  for (const [idem, jobs] of keyed) expect([...jobs], idem).toHaveLength(1);
  const calls = (await stack.simStats()).requests.images;
  for (const [idem, jobs] of keyed) expect((await ask(idem, false)).jobId, idem).toBe([...jobs][0]);
  expect((await stack.simStats()).requests.images).toBe(calls);

  // 6. money: every accepted job reserved and settled once, for what it delivered; nothing else
  // charged or held; the ledger sums to the balance
  await waitFor(async () => (await stack.account(accountId)).reserved === 0, 30_000, 'every reservation closed');
  const { balance, spent, ledger } = await stack.account(accountId);
  expect(ledger.reduce((sum, e) => sum + e.amount, 0)).toBe(balance);
  expect(ledger.filter((e) => e.type === 'settle').reduce((sum, e) => sum + e.charged, 0)).toBe(spent);
  const byJob = new Map<string, LedgerEntry[]>();
  for (const entry of ledger.filter((e) => e.jobId)) byJob.set(entry.jobId, [...(byJob.get(entry.jobId) ?? []), entry]);
  expect([...byJob.keys()].sort()).toEqual([...accepted.keys()].sort());
  for (const [jobId, entries] of byJob) {
    expect(entries.map((e) => e.type).sort(), jobId).toEqual(['reserve', 'settle']);
    expect(entries.find((e) => e.type === 'settle')!.charged, jobId).toBe(accepted.get(jobId)!.length * IMAGE_PRICE);
  }
}, 240_000);
