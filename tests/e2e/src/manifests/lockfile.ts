import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '@relay/testkit';

/** A package-lock.json v3 entry, keyed by its folder ('' for the root, 'apps/api', 'node_modules/x'). */
export interface LockEntry {
  name?: string;
  version?: string;
  link?: boolean;
  resolved?: string;
  dev?: boolean;
  hasInstallScript?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

export type Lock = { packages: Record<string, LockEntry> };

export const readLock = (): Lock => JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8')) as Lock;

/** The folder Node finds package `name` in from folder `from`: its own node_modules, then each parent's. */
export function resolveIn(lock: Lock, from: string, name: string): string | undefined {
  for (let dir = from; ;) {
    const candidate = dir ? `${dir}/node_modules/${name}` : `node_modules/${name}`;
    if (lock.packages[candidate]) return candidate;
    if (!dir) return undefined;
    const parent = dir.lastIndexOf('/node_modules/');
    dir = parent >= 0 ? dir.slice(0, parent) : '';
  }
}

/** The folder name of an entry's package ('node_modules/a/node_modules/@s/b' is '@s/b'). */
export const nameAt = (path: string) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);

export interface InstallOptions {
  /** The workspace folders whose dependencies are installed (the manifests present). */
  workspaces: string[];
  omitDev: boolean;
}

/**
 * What `npm ci` may reify from the lockfile for these workspaces: the folders of every package
 * their dependencies reach (devDependencies too, for the workspaces themselves, unless omitted).
 * A superset of what npm installs, so that a check of it holds for the real install: optional
 * peers count even under `--omit=peer` (npm 11 still installs some: valibot's typescript, openai's
 * undici), and so does every platform's optional binary, where npm takes the machine's own.
 */
export function installedBy(lock: Lock, options: InstallOptions): Set<string> {
  const installed = new Set<string>();
  const visit = (path: string, isWorkspace: boolean) => {
    const entry = lock.packages[path];
    if (!entry) return;
    const edges = {
      ...entry.dependencies,
      ...entry.optionalDependencies,
      ...entry.peerDependencies,
      ...(isWorkspace && !options.omitDev ? entry.devDependencies : {}),
    };
    for (const name of Object.keys(edges)) {
      let at = resolveIn(lock, path, name);
      if (!at || installed.has(at)) continue;
      installed.add(at);
      const target = lock.packages[at]!;
      // a workspace linked into node_modules: its own dependencies are installed with it
      if (target.link && target.resolved) {
        at = target.resolved;
        visit(at, true);
      } else visit(at, false);
    }
  };
  for (const workspace of ['', ...options.workspaces]) visit(workspace, true);
  return installed;
}
