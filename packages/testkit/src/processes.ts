import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

export type AppName = 'api' | 'worker' | 'simulator';

/** The log line each app prints once it is ready to work. */
const READY: Record<AppName, string> = {
  api: 'api listening',
  worker: 'worker ready',
  simulator: 'upstream simulator listening',
};

export interface AppProcess {
  child: ChildProcess;
  /** Everything the process printed so far (for failure messages). */
  output(): string;
  /** SIGTERM (or another signal) and wait for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Runs one of the relay's apps from source as its own process (tsx, "source" condition) and
 * resolves once it logs that it is ready. `echo` (or RELAY_TEST_LOGS=1) prints its output.
 */
export async function spawnApp(
  name: AppName,
  env: Record<string, string | undefined>,
  { timeoutMs = 30_000, echo = process.env.RELAY_TEST_LOGS === '1' } = {},
): Promise<AppProcess> {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', `apps/${name}/src/main.ts`], {
    cwd: repoRoot,
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    if (output.length > 2_000_000) output = output.slice(-1_000_000);
    if (echo) process.stderr.write(`[${name}] ${chunk.toString()}`);
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} not ready after ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const check = () => {
      if (output.includes(READY[name])) {
        clearTimeout(timer);
        child.stdout!.off('data', check);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before it was ready:\n${output}`));
    });
  }).catch(async (error) => {
    child.kill('SIGKILL');
    throw error;
  });

  return {
    child,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
  };
}
