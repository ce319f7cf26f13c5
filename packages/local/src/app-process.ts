import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * Node's arguments to run a TypeScript entry point of the relay from source: tsx, the workspace
 * packages' sources, and .lua files imported as text.
 */
export const SOURCE_NODE_ARGS = [
  '--conditions=relay-source',
  '--import',
  'tsx',
  '--import',
  new URL('../../../scripts/lua-as-text.mjs', import.meta.url).href,
];

export type AppName = 'api' | 'worker' | 'simulator';

/**
 * V8's options each app runs with, here (npm start, the tests, npm run bench) as in its image
 * (Dockerfile, docker-compose.yml, the Kubernetes kit: tests/e2e/src/node-args.test.ts holds them
 * together). The api: a young generation of 8 MB semi-spaces instead of 16. Its survivors are
 * mostly the state of requests that wait (kept anyway) and a scavenge copies them all, so a smaller
 * young generation pauses the event loop for less each time; and it takes 16 MB less room. With
 * 10,000 requests waiting at once its RSS was 390-403 MB against 417-433 MB and its event loop's
 * p99 29 ms against 36-53 ms, in runs alternated in one session (docs/benchmarks.md, Scale).
 */
export const APP_NODE_ARGS: Readonly<Record<AppName, readonly string[]>> = {
  api: ['--max-semi-space-size=8'],
  worker: [],
  simulator: [],
};

/** What a process announced when it became ready (the api and simulator send their url). */
export type ReadyMessage = { type: 'ready'; url?: string } & Record<string, unknown>;

/**
 * A process that exited before it was ready. `configError`: the one line it said about its
 * configuration (a bad variable, a port taken) over IPC, for a launcher to repeat.
 */
export class AppStartError extends Error {
  override name = 'AppStartError';
  constructor(
    readonly app: string,
    readonly code: number | null,
    readonly output: string,
    readonly configError: string | undefined,
  ) {
    super(`${app} exited with ${code} before it was ready:\n${output}`);
  }
}

export interface AppProcess {
  child: ChildProcess;
  ready: ReadyMessage;
  /** Everything the process printed so far (for failure messages). */
  output(): string;
  /** SIGTERM (or another signal) and wait for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface SpawnOptions {
  timeoutMs?: number;
  /** Print the process's output as it comes (prefixed with its name). */
  echo?: boolean;
  nodeArgs?: string[];
  /** Run the esbuild output (dist/, npm run build) as the Docker image does, instead of the sources. */
  bundle?: boolean;
}

/**
 * Runs a Node entry point as its own process and resolves once it announces readiness over IPC
 * (core's announceReady), with what it announced.
 */
export async function spawnReady(
  name: string,
  args: string[],
  env: Record<string, string | undefined>,
  { timeoutMs = 30_000, echo = false }: Pick<SpawnOptions, 'timeoutMs' | 'echo'> = {},
): Promise<AppProcess> {
  const child = spawn(process.execPath, args, {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
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

  const ready = await new Promise<ReadyMessage>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} not ready after ${timeoutMs} ms:\n${output}`)), timeoutMs);
    let configError: string | undefined;
    child.on('message', (message: Partial<ReadyMessage> | { type: 'config-error'; message: string } | null) => {
      if (message?.type === 'config-error' && 'message' in message) configError = message.message;
      if (message?.type !== 'ready') return;
      clearTimeout(timer);
      resolve(message as ReadyMessage);
    });
    // 'close', not 'exit': its output and last IPC message are read by then
    child.once('close', (code) => {
      clearTimeout(timer);
      reject(new AppStartError(name, code, output, configError));
    });
  }).catch((error: unknown) => {
    child.kill('SIGKILL');
    throw error;
  });
  // the IPC channel must not keep this process alive
  child.channel?.unref();

  return {
    child,
    ready,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
  };
}

/**
 * Runs one of the relay's apps as its own process, from source (tsx, "relay-source" condition)
 * or from its bundle, and resolves once it is ready. `echo` (or RELAY_TEST_LOGS=1) prints its output.
 */
export function spawnApp(name: AppName, env: Record<string, string | undefined>, options: SpawnOptions = {}): Promise<AppProcess> {
  const { nodeArgs = [], bundle = false, echo = process.env.RELAY_TEST_LOGS === '1', timeoutMs } = options;
  const entry = bundle ? [`dist/${name}.mjs`] : [...SOURCE_NODE_ARGS, `apps/${name}/src/main.ts`];
  return spawnReady(name, [...APP_NODE_ARGS[name], ...nodeArgs, ...entry], env, { echo, ...(timeoutMs ? { timeoutMs } : {}) });
}
