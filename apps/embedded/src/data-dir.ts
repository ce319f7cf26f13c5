import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { adminTokenTooShort, ConfigError } from '@relay/core';

/**
 * What `npm start` keeps in its data directory (docs/npm-start.md names these files):
 *   admin-token     the admin API's token, made once, so `export ADMIN_TOKEN=...` stays true
 *   channel-secret  seals the keys of channels added at run time; made once, so they stay readable
 *   demo-key.json   the demo account and its key
 *   redis-prefix    the prefix of its Redis keys, made once (redis-prefix.ts)
 *   relay.json      where the running relay answers, for the admin CLI; removed at stop
 *   redis/, s3/     Redis's AOF and the embedded store's files, when npm start runs them
 */
function secretIn(dataDir: string, name: string, given: string | undefined, bytes = 24): string {
  if (given) return given;
  const file = join(dataDir, name);
  if (existsSync(file)) {
    const saved = readFileSync(file, 'utf8').trim();
    if (saved) return saved;
  }
  const secret = randomBytes(bytes).toString('base64url');
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

/** The admin token: ADMIN_TOKEN, else the one kept in the data folder, made there the first time. */
export function adminTokenIn(dataDir: string, given: string | undefined) {
  // 256 random bits: 43 characters, past the 32 the api takes
  const token = secretIn(dataDir, 'admin-token', given, 32);
  // a kept one edited by hand: said here, before any part starts, rather than by the api after
  const refused = given ? undefined : adminTokenTooShort(token);
  if (refused)
    throw new ConfigError(
      `the admin token kept in ${join(dataDir, 'admin-token')} ${refused}; or delete the file and npm start makes a new one`,
    );
  return token;
}
export const channelSecretIn = (dataDir: string, given: string | undefined) => secretIn(dataDir, 'channel-secret', given);

export const RUNNING_FILE = 'relay.json';

/** Tells the admin CLI where this relay answers, and with which token, while it runs. */
export function announceRunning(dataDir: string, info: { url: string; adminToken: string; pid: number }) {
  writeFileSync(join(dataDir, RUNNING_FILE), JSON.stringify(info, null, 2), { mode: 0o600 });
  return () => rmSync(join(dataDir, RUNNING_FILE), { force: true });
}
