import { afterAll, beforeAll, expect, test } from 'vitest';
import { waitFor } from '@relay/testkit';
import { admin, startSimProcess, startStack, type SimProcess, type Stack } from '@relay/e2e';
import { finalAnswer, generate, settlementsPerJob, workerCounter } from './helpers.js';

/** Upstream channels failing as processes do: every one of them gone for a while, a worker killed mid-call. */
let stack: Stack;
let a: SimProcess;
let b: SimProcess;
const tuning = {
  worker: {
    channelRefreshMs: 200,
    breaker: { minCalls: 4, windowMs: 10_000, cooldownMs: 1_000 },
    // a dead worker's lease and job are taken over in seconds
    upstreamLeaseMs: 1_500,
    jobLockMs: 1_500,
    stalledCheckMs: 500,
  },
};
beforeAll(async () => {
  [a, b] = await Promise.all([startSimProcess(), startSimProcess()]);
  stack = await startStack({ allow: [new URL(a.url).host, new URL(b.url).host], tuning });
  await admin(stack, 'PATCH', '/channels/ark', { disabled: true });
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await Promise.all([a?.stop(), b?.stop()]);
});

const channelStates = async () => {
  const { channels } = (await (await stack.admin('GET', '/channels')).json()) as { channels: Array<{ id: string; state: string }> };
  return Object.fromEntries(channels.map((c) => [c.id, c.state]));
};

test('every channel down across failed probes, then back: requests within their budget all succeed, each charged once', async () => {
  await admin(stack, 'POST', '/channels', { id: 'a', upstream: 'ark', baseUrl: `${a.url}/api/v3`, apiKey: 'sim-key' });
  await admin(stack, 'POST', '/channels', { id: 'b', upstream: 'ark', baseUrl: `${b.url}/api/v3`, apiKey: 'sim-key' });
  const { key, accountId } = await stack.newKey();
  await Promise.all([a.stop(), b.stop()]);
  const pending = Array.from({ length: 10 }, () => generate(stack, key, undefined, { prefer: 'wait=60' }));
  // the outage is seen (both breakers open: the jobs wait, delayed, instead of spending attempts),
  // and outlasts two cooldowns: each channel's breaker opened on its 4th failed call, then two
  // probes after a cooldown failed and opened it again
  const failures = (channel: string) => workerCounter(stack, 'relay_channel_calls_total', { channel, outcome: 'fail' });
  await waitFor(
    async () => {
      const states = await channelStates();
      const [fa, fb] = await Promise.all([failures('a'), failures('b')]);
      return states.a === 'open' && states.b === 'open' && fa >= 6 && fb >= 6;
    },
    60_000,
    'both channels open again after two failed probes each',
  );
  await Promise.all([a.start(), b.start()]);

  const statuses = await Promise.all(pending.map(async (p) => (await p).status));
  expect(statuses).toEqual(Array(10).fill(200));
  const settled = await settlementsPerJob(stack, accountId);
  expect([...settled.values()]).toEqual(Array(10).fill(1));
  // the channel whose probe worked is closed; the other waits for the next call to probe it
  const states = await channelStates();
  expect([states.a, states.b]).toContain('closed');
  expect([states.a, states.b].every((state) => state === 'closed' || state === 'half-open')).toBe(true);
}, 120_000);

test('a worker SIGKILLed while it holds a lease of a one-call channel: the lease lapses, no capacity is lost', async () => {
  await admin(stack, 'PATCH', '/channels/b', { disabled: true });
  await admin(stack, 'PATCH', '/channels/a', { maxConcurrent: 1 });
  const { key } = await stack.newKey();
  await a.clear();
  await a.fault({ type: 'hold', api: 'images' });
  const first = await generate(stack, key, undefined, { prefer: 'respond-async' });
  const { id } = (await first.json()) as { id: string };
  await waitFor(async () => (await a.stats()).holding === 1, 15_000, 'the call held at the upstream');
  const second = await stack.spawn('worker');
  await stack.worker.stop('SIGKILL');
  stack.worker = second;
  await fetch(`${a.url}/_sim/release`, { method: 'POST' }); // its caller is gone anyway

  // the one lease belonged to the dead worker: once it lapses the channel takes calls again
  const next = await generate(stack, key);
  expect(next.status).toBe(200);
  expect((await finalAnswer(stack.url, key, id)).status).toBe(200); // the killed worker's job, taken over
  expect((await a.stats()).maxInflight).toBe(1);
}, 120_000);
