import { ConfigError } from '../config/env.js';

/**
 * Runs a process entry point: a configuration error (a port taken included) prints its list and
 * exits 1 without a stack trace, and tells a parent over IPC; anything else is a crash with one.
 */
export async function runMain(main: () => Promise<void>): Promise<void> {
  try {
    await main();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      // a parent that spawned this process (npm start's launcher) says it again as its own last line
      if (process.connected) process.send!({ type: 'config-error', message: error.message }, () => process.exit(1));
      else process.exit(1);
      return;
    }
    console.error(error);
    process.exit(1);
  }
}

/** Calls `stop` once on SIGTERM/SIGINT, then exits; a second signal exits at once. */
export function onShutdown(stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(`shutdown after ${signal} failed`, error);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
}

/** Tells a parent that spawned this process with an IPC channel that it is ready (any log level). */
export function announceReady(info: Record<string, unknown> = {}): void {
  process.send?.({ type: 'ready', ...info });
  // a parent that dies (npm start killed, a test runner gone) takes its children down with it,
  // through their usual graceful shutdown, instead of leaving them holding their ports
  if (process.connected) process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}
