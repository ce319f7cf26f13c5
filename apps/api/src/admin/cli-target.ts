import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface AdminTarget {
  url: string;
  token: string | undefined;
  /** Where the values came from, for the one line printed when the relay does not answer. */
  from: string;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Which relay the CLI talks to: ADMIN_URL / ADMIN_TOKEN when set; else the relay `npm start`
 * runs from this checkout (its data dir's relay.json, while its launcher lives, and the
 * admin-token it keeps); else the api of this container (PORT, as in `docker compose exec api`).
 */
export function findAdminTarget(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): AdminTarget {
  const dataDir = resolve(cwd, env.RELAY_DATA_DIR || '.data');
  const running = join(dataDir, 'relay.json');
  const kept = join(dataDir, 'admin-token');
  const keptToken = existsSync(kept) ? readFileSync(kept, 'utf8').trim() || undefined : undefined;
  if (env.ADMIN_URL) return { url: env.ADMIN_URL.replace(/\/+$/, ''), token: env.ADMIN_TOKEN || keptToken, from: 'ADMIN_URL' };
  if (existsSync(running)) {
    try {
      const info = JSON.parse(readFileSync(running, 'utf8')) as { url?: unknown; adminToken?: unknown; pid?: unknown };
      if (typeof info.url === 'string' && typeof info.pid === 'number' && alive(info.pid)) {
        return {
          url: info.url,
          token: env.ADMIN_TOKEN || (typeof info.adminToken === 'string' ? info.adminToken : keptToken),
          from: running,
        };
      }
    } catch {
      // a half-written or foreign file: fall through to the defaults
    }
  }
  return { url: `http://127.0.0.1:${env.PORT || 8080}`, token: env.ADMIN_TOKEN || keptToken, from: 'the default address' };
}

/** A negative amount (`credits add acct_... -100000`) is a value, not an option: parseArgs would refuse it. */
export function protectNegatives(args: string[]): { args: string[]; restore: (value: string) => string } {
  const MARK = '\u0000neg:';
  return {
    args: args.map((a) => (/^-\d+(\.\d+)?$/.test(a) ? MARK + a : a)),
    restore: (value) => (value.startsWith(MARK) ? value.slice(MARK.length) : value),
  };
}
