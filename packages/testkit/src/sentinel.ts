import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort, spawnRedisServer, type LocalRedis } from '@relay/local';
import { waitFor } from './net.js';

/** A primary, its replica and three sentinels watching them, all on loopback: Redis as teams run it for failover. */
export interface SentinelSet {
  /** redis+sentinel://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3/<name>: what the relay is given. */
  url: string;
  name: string;
  /** The servers, first the primary at the start, then its replica. */
  servers: LocalRedis[];
  /** The address the sentinels name as the primary now. */
  primaryPort(): Promise<number>;
  /** Kills the primary (SIGKILL) and resolves once the sentinels name the replica in its place. */
  failOver(): Promise<{ from: number; to: number }>;
  /**
   * Cuts the replica off the primary (it can no longer authenticate to it) and resolves once the
   * primary has no replica left: what the primary acknowledges from then on is on it alone, lost
   * if it dies. The sentinels still promote the replica (its link down for seconds, not the
   * minutes that would rule it out).
   */
  cutReplication(): Promise<void>;
  close(): Promise<void>;
}

/** A sentinel says so once it watches its primary. */
const MONITORING = /\+monitor master/;

async function startSentinel(
  dir: string,
  name: string,
  primaryPort: number,
  quorum: number,
): Promise<{ port: number; child: ChildProcess }> {
  const port = await freePort();
  const conf = join(dir, `sentinel-${port}.conf`);
  // down after a second, a failover given five: a test waits seconds, not the defaults' minutes
  writeFileSync(
    conf,
    [
      `port ${port}`,
      'bind 127.0.0.1',
      `dir ${dir}`,
      `sentinel monitor ${name} 127.0.0.1 ${primaryPort} ${quorum}`,
      `sentinel down-after-milliseconds ${name} 1000`,
      `sentinel failover-timeout ${name} 5000`,
      `sentinel parallel-syncs ${name} 1`,
      '',
    ].join('\n'),
  );
  const child = spawn('redis-server', [conf, '--sentinel', '--logfile', ''], { stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`sentinel on ${port} not watching after 30 s:\n${output}`)), 30_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (!MONITORING.test(output)) return;
      clearTimeout(timer);
      child.stdout.off('data', read);
      resolve();
    };
    child.stdout.on('data', read);
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`sentinel on ${port} exited with ${code}:\n${output}`)));
  });
  return { port, child };
}

const kill = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      });

/**
 * Starts a primary, a replica in sync with it, and three sentinels (quorum 2) that know both and
 * each other: a failover can happen the moment the primary dies.
 */
export async function startSentinelSet(name = 'relay'): Promise<SentinelSet> {
  const dir = mkdtempSync(join(tmpdir(), 'relay-sentinel-'));
  const primary = await spawnRedisServer();
  const replica = await spawnRedisServer({ extraArgs: ['--replicaof', '127.0.0.1', String(primary.port)] });
  const probe = new Redis(replica.url, { maxRetriesPerRequest: 1 });
  await waitFor(async () => /master_link_status:up/.test(await probe.info('replication')), 20_000, 'the replica in sync');
  probe.disconnect();
  const sentinels = await Promise.all([0, 1, 2].map(() => startSentinel(dir, name, primary.port, 2)));
  const clients = sentinels.map((s) => new Redis({ port: s.port, host: '127.0.0.1', maxRetriesPerRequest: 1 }));
  // each knows the replica and the two others (they find each other through the primary, every 2 s)
  await waitFor(
    async () => {
      for (const client of clients) {
        const replicas = (await client.call('SENTINEL', 'REPLICAS', name)) as unknown[];
        const others = (await client.call('SENTINEL', 'SENTINELS', name)) as unknown[];
        if (replicas.length < 1 || others.length < 2) return false;
      }
      return true;
    },
    30_000,
    'the sentinels to know the replica and each other',
  );
  const primaryPort = async () => Number(((await clients[0]!.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', name)) as string[])[1]);
  return {
    url: `redis+sentinel://${sentinels.map((s) => `127.0.0.1:${s.port}`).join(',')}/${name}`,
    name,
    servers: [primary, replica],
    primaryPort,
    async failOver() {
      const from = await primaryPort();
      await [primary, replica].find((server) => server.port === from)!.stop();
      const to = await waitFor(
        async () => {
          const now = await primaryPort();
          return now !== from ? now : undefined;
        },
        60_000,
        'the sentinels to promote the replica',
      );
      return { from, to };
    },
    async cutReplication() {
      const from = await primaryPort();
      const [current, other] = primary.port === from ? [primary, replica] : [replica, primary];
      const toPrimary = new Redis(current.url, { maxRetriesPerRequest: 1 });
      const toReplica = new Redis(other.url, { maxRetriesPerRequest: 1 });
      try {
        // the primary has no password: a replica that sends one is refused at every reconnect
        await toReplica.config('SET', 'masterauth', 'cut-off');
        await toPrimary.client('KILL', 'TYPE', 'replica');
        await waitFor(async () => /connected_slaves:0/.test(await toPrimary.info('replication')), 10_000, 'the replica cut off');
      } finally {
        toPrimary.disconnect();
        toReplica.disconnect();
      }
    },
    async close() {
      for (const client of clients) client.disconnect();
      await Promise.all(sentinels.map((s) => kill(s.child)));
      await Promise.all([primary.close(), replica.close()]);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
