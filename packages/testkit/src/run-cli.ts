import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { repoRoot, SOURCE_NODE_ARGS } from '@relay/local';

/** How a command line ended: its exit code and all it wrote. */
export interface CliExit {
  code: number | null;
  out: string;
  err: string;
}

/**
 * One of the repo's command-line tools run to its end, as a user types it in the checkout
 * (`npm run <script> -- ...`) or as node runs its source (the same program, faster), with only
 * PATH and HOME from this process's environment. Its output is read whole ('close', not 'exit').
 */
export async function runCli(
  tool: { script: string; source: string },
  args: string[],
  env: Record<string, string>,
  how: 'npm' | 'node' = 'node',
): Promise<CliExit> {
  const [command, argv] =
    how === 'npm' ? ['npm', ['run', tool.script, '--', ...args]] : [process.execPath, [...SOURCE_NODE_ARGS, tool.source, ...args]];
  const child = spawn(command, argv, { cwd: repoRoot, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env } });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, out, err };
}
