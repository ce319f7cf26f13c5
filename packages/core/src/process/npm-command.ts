import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** A word as a POSIX shell reads it back: quoted only when it needs to be. */
export const shellWord = (word: string) => (/^[\w@%+=:,./~-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

/** The folder npm takes as its project from `dir`: the nearest one up with a package.json or node_modules. */
function npmProjectOf(dir: string): string | undefined {
  for (let at = resolve(dir); ; at = dirname(at)) {
    if (existsSync(join(at, 'package.json')) || existsSync(join(at, 'node_modules'))) return at;
    if (dirname(at) === at) return undefined;
  }
}

/**
 * `npm`, or `npm --prefix <checkout>`: what reaches this checkout's scripts from where the user
 * typed the command. npm runs a script in the checkout and says in INIT_CWD where it was typed;
 * from a folder npm does not resolve to the checkout (the user's own, or a workspace inside it),
 * plain `npm run` fails with "Could not read package.json".
 */
export function npmCommand(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string {
  const typedIn = env.INIT_CWD || cwd;
  return npmProjectOf(typedIn) === resolve(cwd) ? 'npm' : `npm --prefix ${shellWord(resolve(cwd))}`;
}

/**
 * How to type `npm run <script> --` again where the user is, for the hints a CLI prints (a
 * resume command, `--help`). Run without npm (the image's `node dist/batch.mjs`), the node command.
 */
export function npmRunCommand(
  script: string,
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
  entry = process.argv[1] ?? '',
): string {
  if (!env.npm_lifecycle_event) return entry.endsWith('.mjs') ? `node ${shellWord(relative(cwd, entry))}` : `npm run ${script} --`;
  return `${npmCommand(env, cwd)} run ${script} --`;
}
