import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * What `npm start` keeps in its data directory (docs/npm-start.md names these files):
 *   admin-token     the admin API's token, made once, so `export ADMIN_TOKEN=...` stays true
 *   channel-secret  seals the keys of channels added at run time; made once, so they stay readable
 *   demo-key.json   the demo account and its key
 *   redis-prefix    the prefix of its Redis keys, made once (redis-prefix.ts)
 *   relay.json      where the running relay answers, for the admin CLI; removed at stop
 *   redis/, s3/     Redis's AOF and the embedded store's files, when npm start runs them
 */
function secretIn(dataDir: string, name: string, given: string | undefined): string {
  if (given) return given;
  const file = join(dataDir, name);
  if (existsSync(file)) {
    const saved = readFileSync(file, 'utf8').trim();
    if (saved) return saved;
  }
  const secret = randomBytes(24).toString('base64url');
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

export const adminTokenIn = (dataDir: string, given: string | undefined) => secretIn(dataDir, 'admin-token', given);
export const channelSecretIn = (dataDir: string, given: string | undefined) => secretIn(dataDir, 'channel-secret', given);

export const RUNNING_FILE = 'relay.json';

/** Tells the admin CLI where this relay answers, and with which token, while it runs. */
export function announceRunning(dataDir: string, info: { url: string; adminToken: string; pid: number }) {
  writeFileSync(join(dataDir, RUNNING_FILE), JSON.stringify(info, null, 2), { mode: 0o600 });
  return () => rmSync(join(dataDir, RUNNING_FILE), { force: true });
}
