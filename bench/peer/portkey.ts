import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort, portAnswers, repoRoot, waitFor } from '@relay/testkit';

/**
 * The Portkey OSS gateway (a pure pass-through that stores nothing) as the benchmark's peer:
 * its own process, on loopback only, stopped by its pid. Calls go through its pass-through
 * route (`/v1/proxy/...` + `x-portkey-custom-host`), which forwards a body untouched.
 */
export async function startPortkey() {
  const port = await freePort();
  const entry = join(repoRoot, 'node_modules/@portkey-ai/gateway/build/start-server.js');
  const child = spawn(process.execPath, ['--import', join(repoRoot, 'bench/peer/loopback.mjs'), entry, `--port=${port}`, '--headless'], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production' },
    stdio: 'ignore',
  });
  await waitFor(() => portAnswers(port), 20_000, 'the Portkey gateway');
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    pid: child.pid!,
    /** Headers that send a pass-through call on to `host` (the part of the path after /v1/proxy is appended). */
    headers: (host: string) => ({ 'x-portkey-provider': 'openai', 'x-portkey-custom-host': host }),
    async stop() {
      if (child.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
    },
  };
}
