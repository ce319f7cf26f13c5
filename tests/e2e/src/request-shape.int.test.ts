import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { postJson, startStack, type Stack } from './stack.js';

/**
 * The shape of one request as Redis sees it, counted by Redis itself (INFO commandstats: every
 * command, those a script runs included; INFO stats total_reads_processed: the socket reads, a
 * pipeline or a turn's coalesced writes being one), never timed. Requests go one at a time; the
 * processes' periodic work (heartbeats, stalled-job checks, sweeps), measured alone over a quiet
 * window first, is taken out at its rate. The ceilings hold today's figures with about a
 * twentieth to spare (what a step learns told to the later steps of its script, the clock among
 * it; an account's month in its own hash; a followed job marked on its reservation, so the begin
 * and the end look at no waiter set otherwise; lease sets without a key expiry; no look at
 * prioritized jobs or a queue's pause in BullMQ's add and take, the delayed set read once a take:
 * 77.0-78.7 commands for images, 79.4-80.6 for speech; before them, steps composed into one script each,
 * the begin with the pick, the charge and
 * the notice with BullMQ's move, the lease back with the checkpoint, BullMQ without its flow,
 * deduplication and counter work, the recent finishes trimmed by heartbeats: 90.2-91.1 commands
 * for images, 91.4-91.6 for speech; before them, an address's failures read with a plain GET,
 * not a script: 101.1 commands
 * for images, 102.8-105.1 for speech; an account's sums and a day's aggregates each read and
 * written in one command, not an HINCRBY a field: 101.8-102.5 and 103.8-106.2;
 * before that, issue 35's script cuts: no next take with an end while the worker blocks on
 * the marker, no drained check, no dispatching entry for a job started at admission, notices by
 * XADD NOMKSTREAM, a reservation's time from its ledger entry, the breaker window read once a
 * bucket, admission by HSETNX: 106.7-107.5 commands and 8.1-8.2 reads for images; speech
 * 107.3-109.4 and 8.1-8.3, its clip published to the waiting api with the charge; before them,
 * the folds: the begin with the pick, the charge and the notice with
 * BullMQ's move to completed, the api hearing its inbox by subscription: 122.1-124.2 commands and
 * 8.2-8.6 reads for images, 121.2-123.1 and 7.8-8.4 for speech, beside a CPU hog; before them, the
 * worker blocking at once when its take said it was the last, no empty fetch: 124.7-126.1 commands
 * and 12.0-12.3 reads for images, 123.6-125.7 and 11.7-12.1 for speech; the scripts without
 * BullMQ's event writes before it: 131.5-133.4 commands for images,
 * 131.8-132.8 for speech; 138-140 commands and 12.9-13.3 reads for images, 137-139 and
 * 12.8-13.1 for speech after the marker fix, the worker's fetch blocking as soon as it took the last
 * job; 142-144 and 14.9-15.4, 143-145 and 14.7-15.2 before it; 151 and 16.3, 145 and 15.7 before
 * the first cuts), so a step added to a request fails here; `npm run bench:commands` prints the
 * figures beside the targets and docs/benchmarks.md has them by stage.
 */
const REQUESTS = 20;
const CEILING = { images: { commands: 83, reads: 9.5 }, speech: { commands: 84, reads: 9.5 } };

let stack: Stack;
let redis: Redis;
beforeAll(async () => {
  stack = await startStack({ ownRedis: true });
  redis = new Redis(stack.redis.url);
}, 60_000);
afterAll(async () => {
  redis?.disconnect();
  await stack?.close();
});

async function counters() {
  const [commandstats, stats] = await Promise.all([redis.info('commandstats'), redis.info('stats')]);
  const each = new Map<string, number>();
  for (const m of commandstats.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)) if (m[1] !== 'info') each.set(m[1]!, Number(m[2]));
  const commands = [...each.values()].reduce((sum, n) => sum + n, 0);
  return { commands, each, reads: Number(/total_reads_processed:(\d+)/.exec(stats)?.[1] ?? 0), at: performance.now() };
}

async function perRequest(send: () => Promise<Response>) {
  for (let i = 0; i < 3; i++) expect((await send()).status).toBe(200); // warm: scripts loaded, connections made
  const quiet0 = await counters();
  await sleep(2_000); // a window of time measured, not awaited: the periodic work's own rate, with nothing asked
  const quiet1 = await counters();
  const rate = {
    commands: (quiet1.commands - quiet0.commands) / (quiet1.at - quiet0.at),
    reads: (quiet1.reads - quiet0.reads) / (quiet1.at - quiet0.at),
  };
  const start = await counters();
  for (let i = 0; i < REQUESTS; i++) expect((await send()).status).toBe(200);
  // a request's last steps (its place freed, its end told) may land after its answer: the window
  // holds the warm-up's last ones and misses the last request's, so each request counts once
  const end = await counters();
  const ms = end.at - start.at;
  const most = [...end.each]
    .map(([name, n]) => [name, Math.round(((n - (start.each.get(name) ?? 0)) / REQUESTS) * 10) / 10] as const)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 12);
  console.log(most.map(([name, n]) => `${name} ${n}`).join(', '));
  return {
    commands: Math.round(((end.commands - start.commands - rate.commands * ms) / REQUESTS) * 10) / 10,
    reads: Math.round(((end.reads - start.reads - rate.reads * ms) / REQUESTS) * 10) / 10,
  };
}

test('an image request: Redis commands and round trips per request, within their ceilings', async () => {
  const { key } = await stack.newKey();
  const shape = await perRequest(() =>
    postJson(`${stack.url}/v1/images/generations`, { model: 'vendor-gen-4-0-250828', prompt: 'a shape' }, key),
  );
  console.log(`images: ${shape.commands} commands, ${shape.reads} socket reads per request (c=1)`);
  expect(shape.commands).toBeLessThanOrEqual(CEILING.images.commands);
  expect(shape.reads).toBeLessThanOrEqual(CEILING.images.reads);
  expect(shape.commands).toBeGreaterThan(0);
});

test('a speech request: the same', async () => {
  const { key } = await stack.newKey();
  const body = {
    contents: [{ parts: [{ text: 'A shape of a request.' }] }],
    generationConfig: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } } },
  };
  const shape = await perRequest(() =>
    postJson(`${stack.url}/v1beta/models/vendor-3.8-flash-tts:generateContent`, body, undefined, { 'x-goog-api-key': key }),
  );
  console.log(`speech: ${shape.commands} commands, ${shape.reads} socket reads per request (c=1)`);
  expect(shape.commands).toBeLessThanOrEqual(CEILING.speech.commands);
  expect(shape.reads).toBeLessThanOrEqual(CEILING.speech.reads);
  expect(shape.commands).toBeGreaterThan(0);
});
