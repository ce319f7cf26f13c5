import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface RelayTarget {
  url: string;
  key: string | undefined;
}

const readJson = (file: string): Record<string, unknown> | undefined => {
  try {
    return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};

/**
 * Which relay and key the batch CLI uses: RELAY_URL and RELAY_API_KEY when set; else the relay
 * `npm start` runs from this checkout and its demo key (the data dir's relay.json and
 * demo-key.json); else 127.0.0.1:8080, and a key must be given.
 */
export function findRelay(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): RelayTarget {
  const dataDir = resolve(cwd, env.RELAY_DATA_DIR || '.data');
  const running = readJson(join(dataDir, 'relay.json'));
  const demo = readJson(join(dataDir, 'demo-key.json'));
  const url = env.RELAY_URL || (typeof running?.url === 'string' ? running.url : `http://127.0.0.1:${env.PORT || 8080}`);
  const key = env.RELAY_API_KEY || (typeof demo?.key === 'string' ? demo.key : undefined);
  return { url: url.replace(/\/+$/, ''), key };
}
