import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, test } from 'vitest';
import { ConfigError } from '@relay/core';
import { bullPrefix, QUEUES } from '@relay/jobs';
import { freePort, portAnswers } from '@relay/local';
import { startRedis, uniqueName } from '@relay/testkit';
import { loadEmbeddedConfig } from './config.js';
import { ensureRedis } from './infrastructure.js';
import { surveyRedis } from './redis-survey.js';

const shared = await startRedis();
afterAll(() => shared.stop());
const dataDir = () => mkdtempSync(join(tmpdir(), 'relay-launcher-'));

describe('whose Redis npm start runs on', () => {
  test('one that answers at REDIS_URL is reused, not started', async () => {
    const redis = await ensureRedis(loadEmbeddedConfig({ REDIS_URL: shared.url }), dataDir());
    expect(redis).toMatchObject({ url: shared.url, origin: 'reused' });
  });

  test('nothing answering on a local port: a redis-server is started there, its AOF in the data directory', async () => {
    const port = await freePort();
    const dir = dataDir();
    const redis = await ensureRedis(loadEmbeddedConfig({ REDIS_URL: `redis://127.0.0.1:${port}` }), dir);
    try {
      expect(redis).toMatchObject({ url: `redis://127.0.0.1:${port}`, origin: 'started' });
      expect(await portAnswers(port)).toBe(true);
      expect(readdirSync(join(dir, 'redis'))).toContain('appendonlydir');
    } finally {
      await redis.stop();
    }
  });

  test('RELAY_OWN_REDIS=1: a redis-server of its own on a free port, whatever answers on 6379', async () => {
    const dir = dataDir();
    const redis = await ensureRedis(loadEmbeddedConfig({ RELAY_OWN_REDIS: '1' }), dir);
    try {
      expect(redis.origin).toBe('own');
      expect(redis.url).not.toBe('redis://127.0.0.1:6379');
      const client = new Redis(redis.url);
      expect(await client.ping()).toBe('PONG');
      client.disconnect();
      expect(readdirSync(join(dir, 'redis'))).toContain('appendonlydir');
    } finally {
      await redis.stop();
    }
  });

  test('RELAY_OWN_REDIS=1 with a REDIS_URL is a configuration error that says which to drop', () => {
    expect(() => loadEmbeddedConfig({ RELAY_OWN_REDIS: '1', REDIS_URL: shared.url })).toThrow(ConfigError);
    expect(() => loadEmbeddedConfig({ RELAY_OWN_REDIS: '1', REDIS_URL: shared.url })).toThrow(/unset REDIS_URL/);
  });
});

test('the survey counts the accounts and the jobs of every state under the prefix, and nothing under another', async () => {
  const prefix = uniqueName('survey');
  const client = new Redis(shared.url);
  try {
    await client.zadd(`${prefix}:accounts`, 1, 'acct_a', 2, 'acct_b');
    const images = new Queue(QUEUES.images, { connection: client, prefix: bullPrefix(prefix) });
    const speech = new Queue(QUEUES.speech, { connection: client, prefix: bullPrefix(prefix) });
    await images.add('image', {});
    await images.add('image', {}, { delay: 60_000 });
    await speech.add('speech', {});
    await Promise.all([images.close(), speech.close()]);
    expect(await surveyRedis(shared.url, prefix)).toEqual({ accounts: 2, jobs: 3 });
    expect(await surveyRedis(shared.url, uniqueName('empty'))).toEqual({ accounts: 0, jobs: 0 });
  } finally {
    client.disconnect();
  }
});
