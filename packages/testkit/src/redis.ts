import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort, spawnRedisServer, type LocalRedis, type RedisHandle } from '@relay/local';
import { dockerAnswers } from './docker.js';
import { waitFor } from './net.js';

export { spawnRedisServer, type LocalRedis, type RedisHandle } from '@relay/local';

/**
 * Redis for tests: REDIS_URL when set (unless a test needs a server of its own to stop),
 * a container when Docker answers, otherwise a local redis-server process.
 */
export async function startRedis(options: { own?: boolean; appendonly?: boolean } = {}): Promise<RedisHandle> {
  if (process.env.REDIS_URL && !options.own) return { url: process.env.REDIS_URL, stop: async () => {}, close: async () => {} };
  if (!options.own && (await dockerAnswers())) {
    const { GenericContainer } = await import('testcontainers');
    const container = await new GenericContainer('redis:7-alpine').withExposedPorts(6379).start();
    const stop = async () => void (await container.stop());
    return { url: `redis://${container.getHost()}:${container.getMappedPort(6379)}`, stop, close: stop };
  }
  return spawnRedisServer({ appendonly: options.appendonly });
}

/**
 * A real Redis Cluster of three masters (no replicas), each a local redis-server with
 * `--cluster-enabled yes`, joined by `redis-cli --cluster create`. `url` names one node with the
 * relay's cluster scheme (redis+cluster://).
 */
export async function startRedisCluster(): Promise<RedisHandle & { nodes: LocalRedis[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'relay-cluster-'));
  const nodes: LocalRedis[] = [];
  try {
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      // the bus port too, below the ephemeral range: its default (port + 10000) may fall inside it
      // and be taken by an outgoing connection
      const busPort = await freePort();
      nodes.push(
        await spawnRedisServer({
          port,
          dir,
          extraArgs: [
            '--cluster-enabled',
            'yes',
            '--cluster-port',
            String(busPort),
            '--cluster-config-file',
            `nodes-${port}.conf`,
            '--cluster-node-timeout',
            '5000',
          ],
        }),
      );
    }
    await promisify(execFile)('redis-cli', [
      '--cluster',
      'create',
      ...nodes.map((n) => `127.0.0.1:${n.port}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    for (const node of nodes) {
      await waitFor(
        async () => {
          const client = new Redis(node.url, { maxRetriesPerRequest: 0 });
          try {
            return /cluster_state:ok/.test(await client.cluster('INFO'));
          } finally {
            client.disconnect();
          }
        },
        30_000,
        `cluster state ok on ${node.port}`,
      );
    }
  } catch (error) {
    await Promise.all(nodes.map((n) => n.stop()));
    throw error;
  }
  return {
    url: `redis+cluster://127.0.0.1:${nodes[0]!.port}`,
    nodes,
    stop: async () => void (await Promise.all(nodes.map((n) => n.stop()))),
    close: async () => {
      await Promise.all(nodes.map((n) => n.stop()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
