import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { repoRoot, type AppProcess } from '@relay/testkit';
import { postJson, startStack, type Stack } from './stack.js';

/**
 * The bundles the Docker image runs (npm run build: dist/api.mjs, dist/worker.mjs), with the Redis
 * scripts (.lua files) inlined by the build: a job through the bundled api and worker runs the
 * rate limit, idempotency, billing, scheduler and channel scripts.
 */
const IMAGE = { model: 'vendor-gen-4-0-250828', prompt: 'a lighthouse, bundled' };
const SPEECH_PATH = '/v1beta/models/vendor-2.5-flash-preview-tts:generateContent';
const SPEECH = {
  contents: [{ parts: [{ text: 'Say: the bundle works.' }] }],
  generationConfig: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } } },
};

let stack: Stack;
let api: AppProcess;
beforeAll(async () => {
  await promisify(execFile)(process.execPath, ['scripts/build.mjs'], { cwd: repoRoot });
  stack = await startStack({ bundle: true });
  api = await stack.spawn('api', stack.tunedWith({ api: { rateLimitPerMinute: 100 } }));
}, 120_000);
afterAll(() => stack?.close());

test('an image and a speech job through the bundled api and worker are made and charged, a repeat replayed', async () => {
  const { key, accountId } = await stack.newKey();
  const image = await postJson(`${api.ready.url}/v1/images/generations`, IMAGE, key, { 'Idempotency-Key': 'bundle-1' });
  expect(image.status).toBe(200);
  const replay = await postJson(`${api.ready.url}/v1/images/generations`, IMAGE, key, { 'Idempotency-Key': 'bundle-1' });
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect((await postJson(`${api.ready.url}${SPEECH_PATH}`, SPEECH, key)).status).toBe(200);

  const account = await stack.account(accountId);
  expect(account.reserved).toBe(0);
  expect(account.ledger.filter((e) => e.type === 'settle')).toHaveLength(2);
  expect(account.ledger.reduce((sum, e) => sum + e.amount, 0)).toBe(account.balance);
});
