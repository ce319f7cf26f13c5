import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './net.js';

export interface RedisHandle {
  url: string;
  stop(): Promise<void>;
  /** Stops for good, and deletes the data of a server that drew its own temporary folder. */
  close(): Promise<void>;
}

/** A redis-server child process that can be stopped and started again on the same port and data. */
export interface LocalRedis extends RedisHandle {
  port: number;
  start(): Promise<void>;
  /** The running server's process id (benchmarks read its CPU time). */
  pid(): number | undefined;
}

export interface RedisServerOptions {
  port?: number;
  /** AOF on, fsync at every write: what the launcher's own Redis keeps across restarts. */
  appendonly?: boolean;
  dir?: string;
  extraArgs?: string[];
  timeoutMs?: number;
}

/** redis-server logs this line once it has loaded its data and listens. */
const READY = /Ready to accept connections/;

/**
 * A redis-server child process on 127.0.0.1, resolved once it says it is ready (after loading
 * its AOF); its own words when it fails to start (a port in use, a bad option).
 */
export async function spawnRedisServer(options: RedisServerOptions = {}): Promise<LocalRedis> {
  const port = options.port ?? (await freePort());
  const drawn = options.dir === undefined;
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'relay-redis-'));
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  const handle: LocalRedis = {
    url,
    port,
    async start() {
      const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', dir, '--logfile', ''];
      args.push('--appendonly', options.appendonly ? 'yes' : 'no');
      if (options.appendonly) args.push('--appendfsync', 'always');
      args.push(...(options.extraArgs ?? []));
      const started = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
      child = started;
      await new Promise<void>((resolve, reject) => {
        let output = '';
        const fail = (why: string) => {
          clearTimeout(timer);
          started.kill('SIGKILL');
          reject(new Error(`redis-server on port ${port} ${why}:\n${output.trim()}`));
        };
        const timer = setTimeout(() => fail(`not ready after ${options.timeoutMs ?? 30_000} ms`), options.timeoutMs ?? 30_000);
        const read = (chunk: Buffer) => {
          output += chunk.toString();
          if (!READY.test(output)) return;
          clearTimeout(timer);
          // from here on its log is not read (it keeps flowing, unread)
          started.stdout.off('data', read);
          started.stderr.off('data', readError);
          started.off('exit', exited);
          resolve();
        };
        const exited = (code: number | null) => fail(`exited with ${code} before it was ready`);
        const readError = (chunk: Buffer) => (output += chunk.toString());
        started.stdout.on('data', read);
        started.stderr.on('data', readError);
        started.once('exit', exited);
        started.once('error', (error) => fail(`could not start (${error.message}); is redis-server installed?`));
      });
    },
    pid: () => child?.pid,
    async stop() {
      const current = child;
      if (!current || current.exitCode !== null || current.signalCode !== null) return;
      await new Promise<void>((resolve) => {
        current.once('exit', () => resolve());
        current.kill('SIGKILL');
      });
    },
    async close() {
      await handle.stop();
      if (drawn) await rm(dir, { recursive: true, force: true });
    },
  };
  await handle.start();
  return handle;
}
