import { afterAll, beforeAll, beforeEach, expect, test } from 'vitest';
import { waitFor } from '@relay/testkit';
import { probe } from './audio-probe.js';
import { startClientStack, type Stack } from './client-stack.js';

/** /v1/audio/speech through the relay's job machinery: async answers, idempotent replays, OpenAI-shaped refusals. */
let stack: Stack;
let key: string;
let accountId: string;
beforeAll(async () => {
  stack = await startClientStack();
  ({ key, accountId } = await stack.newKey());
}, 60_000);
afterAll(async () => stack?.close());
beforeEach(async () => {
  await fetch(`${stack.sim.url}/_sim/reset`, { method: 'POST' });
});

const TEXT = 'The lighthouse keeper climbed the stairs at dusk and lit the lamp for the ships.';
const speech = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  fetch(`${stack.url}/v1/audio/speech`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
const bytesOf = async (response: Response) => Buffer.from(await response.arrayBuffer());
const settlements = async (jobId: string) =>
  (await stack.account(accountId)).ledger.filter((e) => e.jobId === jobId && e.type === 'settle').map((e) => e.charged);

test("an input over the model's limit is a 400 in OpenAI's shape naming input, before anything is held or called", async () => {
  const res = await speech({ model: 'tts-1', voice: 'alloy', input: 'a'.repeat(32_001) });
  expect(res.status).toBe(400);
  expect(await res.json()).toEqual({
    error: { message: expect.stringContaining('32000') as string, type: 'invalid_request_error', param: 'input', code: expect.anything() },
  });
  expect((await stack.simStats()).requests.speech).toBe(0);
  expect((await stack.account(accountId)).reserved).toBe(0);
});

test('one speaker is a 400 naming speakers: Gemini takes exactly two, one voice is `voice`', async () => {
  const res = await speech({ model: 'tts-1', input: 'Joe: hi', speakers: [{ name: 'Joe', voice: 'onyx' }] });
  expect(res.status).toBe(400);
  expect(await res.json()).toMatchObject({ error: { param: 'speakers', message: expect.stringMatching(/exactly 2/) as string } });
});

test('Prefer: respond-async answers 202 at once; GET /v1/jobs/{id} then gives the audio in the format asked', async () => {
  await stack.fault({ type: 'hold', api: 'speech' });
  const res = await speech({ model: 'tts-1', voice: 'coral', input: TEXT, response_format: 'flac' }, { Prefer: 'respond-async' });
  expect(res.status).toBe(202);
  const location = res.headers.get('location')!;
  expect(location).toMatch(/^\/v1\/jobs\/tts_[0-9a-f]{32}$/);
  expect(await res.json()).toMatchObject({ id: location.split('/').at(-1), status: expect.any(String) as string });
  const lookup = () => fetch(`${stack.url}${location}`, { headers: { authorization: `Bearer ${key}` } });
  expect((await lookup()).status).toBe(202); // still held upstream
  await waitFor(async () => (await stack.release()) === 1 || undefined, 20_000, 'the held call to be released');
  const done = await waitFor(async () => (await lookup().then((r) => (r.status === 200 ? r : undefined))) ?? undefined, 20_000, 'the job');
  expect(done.headers.get('content-type')).toBe('audio/flac');
  expect(probe(await bytesOf(done))).toMatchObject({ codec: 'flac', channels: 1, sampleRate: 24_000 });
  expect(await settlements(location.split('/').at(-1)!)).toHaveLength(1);
});

test('Idempotency-Key: the replay answers the same audio, one upstream call, one charge', async () => {
  const body = { model: 'tts-1', voice: 'nova', input: TEXT, response_format: 'opus', speed: 1.5 };
  const headers = { 'Idempotency-Key': `speech-${Date.now()}-${Math.random()}` };
  const before = await stack.account(accountId);
  const first = await speech(body, headers);
  expect(first.status).toBe(200);
  const audio = await bytesOf(first);
  expect(probe(audio)).toMatchObject({ codec: 'opus', channels: 1 });
  const replay = await speech(body, headers);
  expect(replay.status).toBe(200);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect((await bytesOf(replay)).equals(audio)).toBe(true);
  expect((await stack.simStats()).requests.speech).toBe(1);
  const after = await stack.account(accountId);
  const charges = after.ledger.filter((e) => e.type === 'settle' && !before.ledger.some((b) => b.id === e.id));
  expect(charges).toHaveLength(1);
  expect(before.balance - after.balance).toBe(charges[0]!.charged);
  // the same key with another body is a conflict, not a second job
  const other = await speech({ ...body, speed: 2 }, headers);
  expect(other.status).toBe(409);
  expect((await other.json()) as object).toMatchObject({ error: { type: expect.any(String) as string } });
});
