import { afterAll, beforeAll, expect, test } from 'vitest';
import type { AppProcess } from '@relay/testkit';
import { postJson, startStack, type Stack } from '@relay/e2e';
import { SPEECH_PATH, speechBody } from './helpers.js';
import { KNOBS } from './knobs.js';
import {
  ACCEPTABLE_STATUSES,
  recordDelivery,
  statusProblems,
  unfetchableFiles,
  unfinishedJobs,
  moneyProblems,
  withQueues,
  type Deliveries,
} from './invariants.js';

/**
 * Mixed traffic while workers, an api process, Redis and the store are killed or stopped and
 * the upstream fails, throttles and hangs. The schedule advances by answers received, not by
 * the clock, so a slow machine stretches it instead of breaking it. Then the invariants: no
 * 500, every accepted job finished, every delivered file fetchable, and money exact.
 */
let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ ownRedis: true, ownS3: true, ...KNOBS });
}, 60_000);
afterAll(async () => stack?.close());

interface Tally {
  answered: number;
  statuses: Record<string, number>;
  /** Accepted (202) job ids and the key that asked. */
  accepted: Map<string, string>;
  delivered: Deliveries;
}

test('soak: faults under mixed load, then no 500, no lost job, files fetchable, money exact', async () => {
  const accounts = await Promise.all(Array.from({ length: 3 }, () => stack.newKey({ balance: 1_000_000_000 })));
  const tally: Tally = { answered: 0, statuses: {}, accepted: new Map(), delivered: new Map() };
  const waiters: Array<{ at: number; go: () => void }> = [];
  const answered = (status: string) => {
    tally.answered += 1;
    tally.statuses[status] = (tally.statuses[status] ?? 0) + 1;
    for (const w of waiters.filter((w) => tally.answered >= w.at)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.go();
    }
  };
  const afterAnswers = (n: number) => new Promise<void>((go) => (tally.answered >= n ? go() : waiters.push({ at: n, go })));

  let secondApi: AppProcess = await stack.spawn('api');
  let stop = false;

  async function oneRequest(client: number, round: number) {
    const { key } = accounts[client % accounts.length]!;
    const base = client % 3 === 2 ? secondApi.ready.url! : stack.url;
    const kind = (client + round) % 7;
    const leave = new AbortController();
    if (kind === 5) setImmediate(() => leave.abort()); // a client that gives up at once
    const image = {
      model: 'vendor-gen-4-0-250828',
      prompt: `soak ${client}.${round}${kind === 1 ? ' 2 images' : ''}`,
      ...(kind === 1 ? { sequential_image_generation: 'auto' } : {}),
    };
    const send =
      kind === 2 || kind === 3
        ? postJson(`${base}${SPEECH_PATH}`, speechBody(`soak speech ${client}.${round}`), undefined, {
            'x-goog-api-key': key,
            ...(kind === 3 ? { Prefer: 'respond-async' } : {}),
          })
        : kind === 6
          ? postJson(`${base}/v1/images/generations`, { ...image, size: '1x1' }, key)
          : fetch(`${base}/v1/images/generations`, {
              method: 'POST',
              headers: {
                'content-type': 'application/json',
                authorization: `Bearer ${key}`,
                ...(kind === 0 ? { Prefer: 'respond-async' } : {}),
                ...(kind === 4 ? { 'Idempotency-Key': `soak-${round % 5}` } : {}),
              },
              body: JSON.stringify(kind === 4 ? { model: image.model, prompt: `idempotent ${round % 5}` } : image),
              signal: leave.signal,
            });
    try {
      const res = await send;
      const text = await res.text();
      if (res.status === 202) tally.accepted.set((JSON.parse(text) as { id: string }).id, key);
      if (res.status === 200) recordDelivery(tally.delivered, res, text);
      answered(String(res.status));
    } catch {
      answered('connection'); // the client left, or its api process was killed
    }
  }

  const clients = Array.from({ length: 8 }, async (_, client) => {
    for (let round = 0; !stop; round++) await oneRequest(client, round);
  });

  /** One round of every fault, starting once `from` answers have come back. */
  async function faultRound(from: number) {
    await afterAnswers(from + 30);
    await stack.fault([
      { type: 'error', api: 'images', status: 500, times: 3 },
      { type: 'error', api: 'speech', status: 429, retryDelay: '0.5s', times: 2 },
      { type: 'error', api: 'speech', status: 503, times: 2 },
    ]);
    await afterAnswers(from + 60);
    const worker = await stack.spawn('worker', KNOBS.worker);
    await stack.worker.stop('SIGKILL');
    stack.worker = worker;
    await afterAnswers(from + 90);
    await stack.s3.stop();
    await afterAnswers(from + 110);
    await stack.s3.start!();
    await afterAnswers(from + 140);
    await stack.redis.stop();
    await afterAnswers(from + 170);
    await stack.redis.start!();
    await afterAnswers(from + 200);
    const replacement = await stack.spawn('api');
    await secondApi.stop('SIGKILL');
    secondApi = replacement;
    await afterAnswers(from + 230);
    await stack.fault({ type: 'hang', api: 'images', times: 1 });
  }
  const ROUND = 300;
  const schedule = (async () => {
    for (let round = 0; round < 3; round++) await faultRound(round * ROUND);
    await afterAnswers(3 * ROUND);
    stop = true;
  })();
  await Promise.all([schedule, ...clients]);
  console.log('soak answers by status:', tally.statuses, 'accepted jobs:', tally.accepted.size);
  expect(tally.accepted.size).toBeGreaterThan(10);

  // 1. no 500, ever; every failure the relay chose is one a client can act on (a 409 is not one it meets here)
  expect(
    statusProblems(
      tally.statuses,
      ACCEPTABLE_STATUSES.filter((s) => s !== '409'),
    ),
  ).toEqual([]);

  // 2. every accepted job reaches a terminal state; none is left active or waiting
  expect(await unfinishedJobs(stack, tally.accepted.keys())).toEqual([]);

  // 3. an accepted job that completed answers its GET with the result, like a synchronous call
  const completed = await withQueues(stack, async (stateOf) =>
    (await Promise.all([...tally.accepted].map(async ([id, key]) => ((await stateOf(id)) === 'completed' ? [[id, key]] : [])))).flat(),
  );
  for (const [id, key] of completed) {
    const res = await fetch(`${stack.url}/v1/jobs/${id}`, { headers: { 'x-goog-api-key': key! } });
    expect(res.status, id).toBe(200);
    recordDelivery(tally.delivered, res, await res.text());
  }
  // every delivered file, synchronous or fetched later, is in the store; any api process serves
  // any link (behind PUBLIC_URL they share one origin), so the links of the killed one are asked here
  expect(await unfetchableFiles(stack.url, tally.delivered)).toEqual([]);

  // 4. money: every reservation closed once, the ledger sums to the balance, charges match deliveries
  for (const { accountId } of accounts) expect(await moneyProblems(stack, accountId, tally.delivered)).toEqual([]);
}, 600_000);
