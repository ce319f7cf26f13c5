import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadApiConfig } from '@relay/api';
import { ConfigError } from '@relay/core';
import { loadWorkerConfig } from '@relay/worker';
import { postJson, startStack, type Stack } from './stack.js';

/**
 * The relay on a real Redis Cluster of three masters (redis-server --cluster-enabled yes, joined by
 * redis-cli --cluster create): api, worker, BullMQ, the billing and scheduler scripts, rate
 * limits, idempotency and upstream leases, with REDIS_URL=redis+cluster://... and a hash-tagged prefix.
 */
const IMAGE = { model: 'vendor-gen-4-0-250828', prompt: 'a lighthouse on a cluster' };
const SPEECH_PATH = '/v1beta/models/vendor-2.5-flash-preview-tts:generateContent';
const SPEECH = {
  contents: [{ parts: [{ text: 'Say cheerfully: the cluster works.' }] }],
  generationConfig: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } } },
};

describe('on Redis Cluster', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ cluster: true, queues: { images: { maxConcurrent: 2 } }, simulator: { SIM_LATENCY_MS: '100' } });
  }, 120_000);
  afterAll(() => stack?.close());

  test('images (url and b64_json) and speech are made, stored and charged', async () => {
    const { key, accountId } = await stack.newKey();
    const url = await postJson(`${stack.url}/v1/images/generations`, IMAGE, key);
    expect(url.status).toBe(200);
    const link = ((await url.json()) as { data: Array<{ url: string }> }).data[0]!.url;
    expect((await fetch(link)).status).toBe(200);
    const b64 = await postJson(`${stack.url}/v1/images/generations`, { ...IMAGE, response_format: 'b64_json' }, key);
    expect(((await b64.json()) as { data: Array<{ b64_json: string }> }).data[0]!.b64_json.length).toBeGreaterThan(1000);
    const speech = await postJson(`${stack.url}${SPEECH_PATH}`, SPEECH, key);
    expect(speech.status).toBe(200);
    const account = await stack.account(accountId);
    expect(account.reserved).toBe(0);
    expect(account.ledger.filter((e) => e.type === 'settle')).toHaveLength(3);
    expect(account.ledger.reduce((sum, e) => sum + e.amount, 0)).toBe(account.balance);
  });

  test('async jobs, idempotent replays, the rate limit and an empty balance answer as on one server', async () => {
    const { key } = await stack.newKey();
    const accepted = await postJson(`${stack.url}/v1/images/generations`, IMAGE, key, {
      Prefer: 'respond-async',
      'Idempotency-Key': 'cluster-1',
    });
    expect(accepted.status).toBe(202);
    const job = (await accepted.json()) as { id: string };
    let answer: Response;
    do answer = await fetch(`${stack.url}/v1/jobs/${job.id}`, { headers: { authorization: `Bearer ${key}` } });
    while (answer.status === 202);
    expect(answer.status).toBe(200);
    const replay = await postJson(`${stack.url}/v1/images/generations`, IMAGE, key, { 'Idempotency-Key': 'cluster-1' });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');

    const limited = await stack.newKey({ rateLimitPerMinute: 1 });
    expect((await postJson(`${stack.url}/v1/images/generations`, IMAGE, limited.key, { Prefer: 'respond-async' })).status).toBe(202);
    expect((await postJson(`${stack.url}/v1/images/generations`, IMAGE, limited.key, { Prefer: 'respond-async' })).status).toBe(429);

    const broke = await stack.newKey({ balance: 0 });
    expect((await postJson(`${stack.url}/v1/images/generations`, IMAGE, broke.key)).status).toBe(402);
  });

  test('the upstream lease cap holds across the cluster: never more than 2 calls at once', async () => {
    const { key } = await stack.newKey();
    const answers = await Promise.all(Array.from({ length: 8 }, () => postJson(`${stack.url}/v1/images/generations`, IMAGE, key)));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    expect((await stack.simStats()).maxInflight).toBeLessThanOrEqual(2);
  });
});

test('a cluster URL with a prefix that has no hash tag is refused, naming the fix', () => {
  const env = { REDIS_URL: 'redis+cluster://127.0.0.1:7000', REDIS_PREFIX: 'relay' };
  expect(() => loadApiConfig(env)).toThrow(ConfigError);
  expect(() => loadApiConfig(env)).toThrow(/REDIS_PREFIX: "relay" has no hash tag: on Redis Cluster set REDIS_PREFIX=\{relay\}/);
  expect(() => loadWorkerConfig(env)).toThrow(/REDIS_PREFIX=\{relay\}/);
  expect(loadApiConfig({ ...env, REDIS_PREFIX: '{relay}' }).REDIS_PREFIX).toBe('{relay}');
});
