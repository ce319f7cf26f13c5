import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** 100 units of account currency, in micro-units: a few thousand simulated images. */
const DEMO_CREDIT = 100_000_000;

/** In the data directory; the api reads it too (the config file's console.demoKeyFile), for the console playground. */
export const DEMO_KEY_FILE = 'demo-key.json';

interface DemoKey {
  accountId: string;
  keyId: string;
  key: string;
}

/**
 * The demo account's key, kept in the data directory so restarts print the same key; made
 * again through the admin API when it no longer works (Redis emptied, key revoked).
 */
export async function demoKey(apiUrl: string, adminToken: string, dataDir: string): Promise<DemoKey> {
  const file = join(dataDir, DEMO_KEY_FILE);
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${apiUrl}/admin${path}`, {
      method,
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, location: res.headers.get('location'), body: (await res.json()) as Record<string, unknown> };
  };
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as DemoKey;
    const account = await admin('GET', `/accounts/${saved.accountId}`);
    const keys = (account.body.keys ?? []) as Array<{ id: string; revokedAt: number | null }>;
    if (account.status === 200 && keys.some((k) => k.id === saved.keyId && k.revokedAt === null)) return saved;
  }
  const account = await admin('POST', '/accounts', { name: 'demo' });
  // names are unique: the demo account of an earlier run (its key revoked, or the file gone) gets the new key
  const accountId = account.status === 409 && account.location ? account.location.split('/').pop()! : String(account.body.id);
  if (account.status !== 409) await admin('POST', `/accounts/${accountId}/credits`, { amount: DEMO_CREDIT, note: 'demo funds' });
  const key = await admin('POST', `/accounts/${accountId}/keys`, { name: 'demo key' });
  const created = { accountId, keyId: String(key.body.id), key: String(key.body.key) };
  writeFileSync(file, JSON.stringify(created, null, 2), { mode: 0o600 });
  return created;
}
