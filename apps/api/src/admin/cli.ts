/**
 * The admin API from a terminal:
 *   npm run admin -- accounts create <name>
 *   npm run admin -- accounts show <accountId>
 *   npm run admin -- keys create <accountId> <name>
 *   npm run admin -- keys revoke <keyId>
 * Reads ADMIN_URL (default http://127.0.0.1:8080) and ADMIN_TOKEN.
 */
const usage = `usage:
  accounts create <name>
  accounts show <accountId>
  keys create <accountId> <name>
  keys revoke <keyId>`;

const base = (process.env.ADMIN_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
const token = process.env.ADMIN_TOKEN;

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) {
    console.error(`${method} ${path} -> ${res.status}: ${text}`);
    process.exit(1);
  }
  console.log(JSON.stringify(JSON.parse(text), null, 2));
}

const [resource, action, ...args] = process.argv.slice(2);
const commands: Record<string, () => Promise<void>> = {
  'accounts create': () => call('POST', '/accounts', { name: args.join(' ') }),
  'accounts show': () => call('GET', `/accounts/${encodeURIComponent(args[0] ?? '')}`),
  'keys create': () => call('POST', `/accounts/${encodeURIComponent(args[0] ?? '')}/keys`, { name: args.slice(1).join(' ') }),
  'keys revoke': () => call('DELETE', `/keys/${encodeURIComponent(args[0] ?? '')}`),
};

const command = commands[`${resource} ${action}`];
if (!command || !token) {
  console.error(token ? usage : `ADMIN_TOKEN is not set\n${usage}`);
  process.exit(2);
}
await command();
