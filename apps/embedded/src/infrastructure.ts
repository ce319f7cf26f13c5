import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { isSentinelUrl, listenOn } from '@relay/core';
import { portAnswers, spawnRedisServer, startEmbeddedStore, type RedisHandle, type S3Handle } from '@relay/local';
import { DEFAULT_REDIS_URL, type EmbeddedConfig } from './config.js';

const onPath = (command: string) => {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

/** Whose Redis the relay runs on: one it found answering, or one it started (on the default port, or its own). */
export type RedisOrigin = 'reused' | 'started' | 'own';

const INSTALL_HINT = 'no redis-server is installed to start one (apt install redis-server, brew install redis)';

async function startRedis(port: number | undefined, dataDir: string) {
  const dir = join(dataDir, 'redis');
  mkdirSync(dir, { recursive: true });
  return spawnRedisServer({ port, appendonly: true, dir });
}

/**
 * RELAY_OWN_REDIS: a redis-server of its own on a free port. Otherwise the configured Redis if it
 * answers (reused: it may hold what others wrote), else a local redis-server (AOF on) on its port.
 */
export async function ensureRedis(config: EmbeddedConfig, dataDir: string): Promise<RedisHandle & { origin: RedisOrigin }> {
  if (config.RELAY_OWN_REDIS) {
    if (!onPath('redis-server')) throw new Error(`RELAY_OWN_REDIS=1, but ${INSTALL_HINT}`);
    return { ...(await startRedis(undefined, dataDir)), origin: 'own' };
  }
  const given = config.REDIS_URL ?? DEFAULT_REDIS_URL;
  // behind Sentinel the primary moves: the relay uses the sentinels as given, never a server of its own
  if (isSentinelUrl(given)) return { url: given, stop: async () => {}, close: async () => {}, origin: 'reused' };
  const url = new URL(given);
  const port = Number(url.port || 6379);
  if (await portAnswers(port, url.hostname)) return { url: given, stop: async () => {}, close: async () => {}, origin: 'reused' };
  if (!['127.0.0.1', 'localhost'].includes(url.hostname) || !onPath('redis-server'))
    throw new Error(`nothing answers at ${given} and ${INSTALL_HINT}`);
  return { ...(await startRedis(port, dataDir)), origin: 'started' };
}

/** S3_ENDPOINT when configured, else the embedded store keeping its files under the data directory. */
export async function ensureStore(config: EmbeddedConfig, dataDir: string): Promise<S3Handle | undefined> {
  if (config.S3_ENDPOINT) return undefined;
  const directory = join(dataDir, 's3');
  mkdirSync(directory, { recursive: true });
  // s3rver leaves its server's 'error' unhandled (a crash with a stack): a taken port is said in one line first
  const probe = createServer();
  await listenOn(probe, config.EMBEDDED_S3_PORT, '127.0.0.1', 'EMBEDDED_S3_PORT');
  await new Promise((resolve) => probe.close(resolve));
  return startEmbeddedStore({ port: config.EMBEDDED_S3_PORT, directory, bucket: process.env.S3_BUCKET || 'relay' });
}
