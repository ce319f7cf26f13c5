import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { portAnswers, spawnRedisServer, startLocalS3, type RedisHandle, type S3Handle } from '@relay/testkit';
import type { EmbeddedConfig } from './config.js';

const onPath = (command: string) => {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

/** The configured Redis if it answers; else a local redis-server (AOF on) when one is installed. */
export async function ensureRedis(config: EmbeddedConfig, dataDir: string): Promise<RedisHandle & { started: boolean }> {
  const url = new URL(config.REDIS_URL);
  const port = Number(url.port || 6379);
  if (await portAnswers(port, url.hostname)) return { url: config.REDIS_URL, stop: async () => {}, started: false };
  const local = ['127.0.0.1', 'localhost'].includes(url.hostname);
  if (!local || !onPath('redis-server')) {
    throw new Error(`nothing answers at ${config.REDIS_URL} and no redis-server is installed to start one (apt install redis-server)`);
  }
  const dir = join(dataDir, 'redis');
  mkdirSync(dir, { recursive: true });
  const redis = await spawnRedisServer({ port, appendonly: true, dir });
  return { ...redis, started: true };
}

/** S3_ENDPOINT when configured, else s3rver keeping its files under the data directory. */
export async function ensureStore(config: EmbeddedConfig, dataDir: string): Promise<S3Handle | undefined> {
  if (config.S3_ENDPOINT) return undefined;
  const directory = join(dataDir, 's3');
  mkdirSync(directory, { recursive: true });
  return startLocalS3({ port: config.EMBEDDED_S3_PORT, directory, bucket: process.env.S3_BUCKET || 'relay', signedOnly: true });
}
