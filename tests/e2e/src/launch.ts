import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, repoRoot, SOURCE_NODE_ARGS, waitFor } from '@relay/testkit';

/**
 * `npm start` (apps/embedded) as a newcomer runs it: every process it starts carries its data
 * directory in its environment, so what it leaves behind can be found by scanning /proc.
 */
/** Pids of live processes whose environment names this data directory (the launcher's children inherit it). */
export function processesOf(dataDir: string): number[] {
  const mark = `RELAY_DATA_DIR=${dataDir}\0`;
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, 'latin1').includes(mark);
      } catch {
        return false; // gone meanwhile, or not ours to read
      }
    })
    .map(Number);
}

/** True once none of the data directory's processes is left; otherwise throws naming them, so a wait that times out says which. */
export function noneLeft(dataDir: string): true {
  const left = processesOf(dataDir);
  if (left.length === 0) return true;
  const named = left.map((pid) => {
    try {
      return `${pid} ${readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ').trim()}`;
    } catch {
      return String(pid);
    }
  });
  throw new Error(`still running: ${named.join('; ')}`);
}

/**
 * `npm start`'s launcher with a data directory, ports and a Redis prefix of its own; `env`
 * overrides. Every port its processes bind is moved (the api's, the simulator's, the embedded
 * store's, the worker's metrics): another relay on this machine holds the defaults.
 */
export async function launch(redisUrl: string, env: Record<string, string> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'relay-start-'));
  const ports = { PORT: await freePort(), SIM_PORT: await freePort(), EMBEDDED_S3_PORT: await freePort(), METRICS_PORT: await freePort() };
  const prefix = `start-${randomUUID().slice(0, 8)}`;
  let output = '';
  const child: ChildProcess = spawn(process.execPath, [...SOURCE_NODE_ARGS, 'apps/embedded/src/main.ts'], {
    cwd: repoRoot,
    // a prefix of its own: the shared Redis may hold what earlier runs (or a developer's npm start) left
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      REDIS_URL: redisUrl,
      REDIS_PREFIX: prefix,
      RELAY_DATA_DIR: dataDir,
      ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    dataDir,
    ports,
    prefix,
    exited,
    output: () => output,
    /** Stops the launcher (if it still runs), waits until none of its processes is left, and deletes its data directory. */
    async remove() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      await waitFor(() => noneLeft(dataDir), 30_000, `npm start's processes gone (${dataDir})`);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
