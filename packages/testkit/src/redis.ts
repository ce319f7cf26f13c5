import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { dockerAnswers } from './docker.js';
import { freePort, waitFor } from './net.js';

export interface RedisHandle {
  url: string;
  stop(): Promise<void>;
}

/** A redis-server child process that can be stopped and started again on the same port and data. */
export interface LocalRedis extends RedisHandle {
  port: number;
  start(): Promise<void>;
  /** The running server's process id (benchmarks read its CPU time). */
  pid(): number | undefined;
}

async function pingable(url: string): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => undefined); // the rejected connect() already reports it
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } finally {
    client.disconnect();
  }
}

export async function spawnRedisServer(
  options: { port?: number; appendonly?: boolean; dir?: string; extraArgs?: string[] } = {},
): Promise<LocalRedis> {
  const port = options.port ?? (await freePort());
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'relay-redis-'));
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  const handle: LocalRedis = {
    url,
    port,
    async start() {
      const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', dir];
      args.push('--appendonly', options.appendonly ? 'yes' : 'no');
      if (options.appendonly) args.push('--appendfsync', 'always');
      args.push(...(options.extraArgs ?? []));
      child = spawn('redis-server', args, { stdio: 'ignore' });
      child.on('error', () => undefined);
      await waitFor(() => pingable(url), 10_000, `redis-server on ${port}`);
    },
    pid: () => child?.pid,
    async stop() {
      const current = child;
      if (!current || current.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        current.once('exit', () => resolve());
        current.kill('SIGKILL');
      });
    },
  };
  await handle.start();
  return handle;
}

/**
 * Redis for tests: REDIS_URL when set (unless a test needs a server of its own to stop),
 * a container when Docker answers, otherwise a local redis-server process.
 */
export async function startRedis(options: { own?: boolean; appendonly?: boolean } = {}): Promise<RedisHandle> {
  if (process.env.REDIS_URL && !options.own) return { url: process.env.REDIS_URL, stop: async () => {} };
  if (!options.own && (await dockerAnswers())) {
    const { GenericContainer } = await import('testcontainers');
    const container = await new GenericContainer('redis:7-alpine').withExposedPorts(6379).start();
    return {
      url: `redis://${container.getHost()}:${container.getMappedPort(6379)}`,
      stop: async () => void (await container.stop()),
    };
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
      nodes.push(
        await spawnRedisServer({
          port,
          dir,
          extraArgs: ['--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`, '--cluster-node-timeout', '5000'],
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
  };
}
