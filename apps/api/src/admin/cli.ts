/**
 * The admin API from a terminal (reads ADMIN_URL, default http://127.0.0.1:8080, and ADMIN_TOKEN):
 *   npm run admin -- accounts create <name>
 *   npm run admin -- accounts list [search] [--limit n] [--cursor c]
 *   npm run admin -- accounts show <accountId>
 *   npm run admin -- accounts set <accountId> [--weight <n>] [--max-in-flight <n>|none]
 *   npm run admin -- schedule
 *   npm run admin -- credits add <accountId> <micro-units> [note]
 *   npm run admin -- usage <accountId> [--from ISO|ms] [--to ISO|ms] [--model id] [--user id] [--key keyId] [--limit n] [--cursor c]
 *   npm run admin -- keys list <accountId>
 *   npm run admin -- keys create <accountId> <name> [--rate-limit <per minute>]
 *   npm run admin -- keys revoke <keyId>
 */
import { parseArgs } from 'node:util';

const usage = `usage:
  accounts create <name>
  accounts list [search] [--limit n] [--cursor c]
  accounts show <accountId>
  accounts set <accountId> [--weight <n>] [--max-in-flight <n>|none]
  schedule
  credits add <accountId> <micro-units> [note]
  usage <accountId> [--from ISO|ms] [--to ISO|ms] [--model id] [--user id] [--key keyId] [--limit n] [--cursor c]
  keys list <accountId>
  keys create <accountId> <name> [--rate-limit <requests per minute>]
  keys revoke <keyId>`;

const base = (process.env.ADMIN_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
const token = process.env.ADMIN_TOKEN;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    from: { type: 'string' },
    to: { type: 'string' },
    model: { type: 'string' },
    user: { type: 'string' },
    key: { type: 'string' },
    limit: { type: 'string' },
    cursor: { type: 'string' },
    'rate-limit': { type: 'string' },
    weight: { type: 'string' },
    'max-in-flight': { type: 'string' },
  },
});

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

const id = (value: string | undefined) => encodeURIComponent(value ?? '');
const [first, second, ...rest] = positionals;
const query = (extra: Record<string, string> = {}) => {
  const q = new URLSearchParams(extra);
  for (const name of ['from', 'to', 'model', 'user', 'key', 'limit', 'cursor'] as const) if (values[name]) q.set(name, values[name]);
  return q.size ? `?${q}` : '';
};

const commands: Record<string, () => Promise<void>> = {
  'accounts create': () => call('POST', '/accounts', { name: rest.join(' ') }),
  'accounts list': () => call('GET', `/accounts${query(rest.length ? { q: rest.join(' ') } : {})}`),
  'accounts show': () => call('GET', `/accounts/${id(rest[0])}`),
  'credits add': () => call('POST', `/accounts/${id(rest[0])}/credits`, { amount: Number(rest[1]), ...(rest[2] ? { note: rest.slice(2).join(' ') } : {}) }),
  'keys list': () => call('GET', `/accounts/${id(rest[0])}/keys`),
  'keys create': () =>
    call('POST', `/accounts/${id(rest[0])}/keys`, {
      name: rest.slice(1).join(' '),
      ...(values['rate-limit'] ? { rateLimitPerMinute: Number(values['rate-limit']) } : {}),
    }),
  'keys revoke': () => call('DELETE', `/keys/${id(rest[0])}`),
  'accounts set': () =>
    call('PATCH', `/accounts/${id(rest[0])}`, {
      ...(values.weight ? { weight: Number(values.weight) } : {}),
      ...(values['max-in-flight'] ? { maxInFlight: values['max-in-flight'] === 'none' ? null : Number(values['max-in-flight']) } : {}),
    }),
  usage: () => call('GET', `/accounts/${id(second)}/usage${query()}`),
  schedule: () => call('GET', '/schedule'),
};

const command = commands[`${first} ${second}`] ?? (first === 'usage' || first === 'schedule' ? commands[first] : undefined);
if (!command || !token) {
  console.error(token ? usage : `ADMIN_TOKEN is not set\n${usage}`);
  process.exit(2);
}
await command();
