/**
 * The admin API from a terminal. It talks to ADMIN_URL with ADMIN_TOKEN, or without them to the
 * relay `npm start` runs from this checkout (see cli-target.ts):
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
 *   npm run admin -- webhooks add <accountId> <url> [--events job.completed,job.failed] | list <accountId> | remove <id> | deliveries <id>
 *   npm run admin -- channels list | show <id> | add <id> <ark|gemini> <baseUrl> --key-env VAR [options] | set <id> [options] | remove <id>
 */
import { parseArgs } from 'node:util';
import { ADMIN_COMMANDS, type AdminCommand } from './cli-commands.js';
import { findAdminTarget, protectNegatives } from './cli-target.js';

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
  keys revoke <keyId>
  webhooks add <accountId> <url> [--events job.completed,job.failed]
  webhooks list <accountId>
  webhooks remove <webhookId>
  webhooks deliveries <webhookId>
  channels list
  channels show <channelId>
  channels add <channelId> <ark|gemini> <baseUrl> (--key-env VAR | --api-key KEY) [channel options]
  channels set <channelId> [channel options] [--base-url URL] [--key-env VAR | --api-key KEY] [--disable | --enable]
  channels remove <channelId>
    channel options: --weight n  --priority n (0 first)  --max-concurrent n  --max-per-minute n
                     --group name|none (a shared capacity)  --models public=vendor,... | default
                     --timeout-ms n|default   (--key-env reads the key from that variable, out of shell history)`;

const target = findAdminTarget();
const { args, restore } = protectNegatives(process.argv.slice(2));

const options = {
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
  events: { type: 'string' },
  'api-key': { type: 'string' },
  'key-env': { type: 'string' },
  'base-url': { type: 'string' },
  priority: { type: 'string' },
  'max-concurrent': { type: 'string' },
  'max-per-minute': { type: 'string' },
  group: { type: 'string' },
  models: { type: 'string' },
  'timeout-ms': { type: 'string' },
  disable: { type: 'boolean' },
  enable: { type: 'boolean' },
} as const;

const parsed = (() => {
  try {
    return parseArgs({ args, allowPositionals: true, options });
  } catch (error) {
    console.error(`${(error as Error).message}\n${usage}`);
    process.exit(2);
  }
})();
const values = parsed.values;
const positionals = parsed.positionals.map(restore);

/** One admin call; expected failures are one line on stderr and exit 1, never a stack. */
async function call(method: string, path: string, body?: unknown) {
  let res: Response;
  try {
    res = await fetch(`${target.url}/admin${path}`, {
      method,
      headers: { authorization: `Bearer ${target.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
  } catch {
    console.error(`no relay answers at ${target.url} (from ${target.from}): start one with npm start, or set ADMIN_URL and ADMIN_TOKEN`);
    process.exit(1);
  }
  const text = await res.text();
  if (res.status === 401 || res.status === 403) {
    console.error(`the relay at ${target.url} refused the admin token: set ADMIN_TOKEN to the one it runs with`);
    process.exit(1);
  }
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
  return q.size ? `?${q.toString()}` : '';
};

/** The channel fields the options name (only those given). */
function channelOptions(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const int = (name: keyof typeof values, field: string) => {
    const value = values[name];
    if (typeof value === 'string') out[field] = Number(value);
  };
  int('weight', 'weight');
  int('priority', 'priority');
  int('max-concurrent', 'maxConcurrent');
  int('max-per-minute', 'maxPerMinute');
  if (values['timeout-ms']) out.timeoutMs = values['timeout-ms'] === 'default' ? null : Number(values['timeout-ms']);
  if (values.group) out.capacityGroup = values.group === 'none' ? null : values.group;
  if (values.models) {
    out.models =
      values.models === 'default'
        ? null
        : Object.fromEntries(
            values.models
              .split(',')
              .map((pair) => pair.split('=').map((s) => s.trim()) as [string, string])
              .map(([p, v]) => [p, v ?? p]),
          );
  }
  if (values['base-url']) out.baseUrl = values['base-url'];
  const key = values['key-env'] ? process.env[values['key-env']] : values['api-key'];
  if (values['key-env'] && !key) {
    console.error(`${values['key-env']} is not set: it should hold the channel's key`);
    process.exit(2);
  }
  if (key) out.apiKey = key;
  if (values.disable) out.disabled = true;
  if (values.enable) out.disabled = false;
  return out;
}

const commands: Record<AdminCommand, () => Promise<void>> = {
  'accounts create': () => call('POST', '/accounts', { name: rest.join(' ') }),
  'accounts list': () => call('GET', `/accounts${query(rest.length ? { q: rest.join(' ') } : {})}`),
  'accounts show': () => call('GET', `/accounts/${id(rest[0])}`),
  'credits add': () =>
    call('POST', `/accounts/${id(rest[0])}/credits`, { amount: Number(rest[1]), ...(rest[2] ? { note: rest.slice(2).join(' ') } : {}) }),
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
  'webhooks add': () =>
    call('POST', `/accounts/${id(rest[0])}/webhooks`, { url: rest[1], ...(values.events ? { events: values.events.split(',') } : {}) }),
  'webhooks list': () => call('GET', `/accounts/${id(rest[0])}/webhooks`),
  'webhooks remove': () => call('DELETE', `/webhooks/${id(rest[0])}`),
  'webhooks deliveries': () => call('GET', `/webhooks/${id(rest[0])}/deliveries`),
  'channels list': () => call('GET', '/channels'),
  'channels show': () => call('GET', `/channels/${id(rest[0])}`),
  'channels add': () => call('POST', '/channels', { id: rest[0], upstream: rest[1], baseUrl: rest[2], ...channelOptions() }),
  'channels set': () => call('PATCH', `/channels/${id(rest[0])}`, channelOptions()),
  'channels remove': () => call('DELETE', `/channels/${id(rest[0])}`),
  usage: () => call('GET', `/accounts/${id(second)}/usage${query()}`),
  schedule: () => call('GET', '/schedule'),
};

const isCommand = (value: string): value is AdminCommand => (ADMIN_COMMANDS as readonly string[]).includes(value);
// two words (`accounts create`) or one (`usage`, `schedule`)
const name = [`${first} ${second}`, `${first}`].find(isCommand);
const command = name ? commands[name] : undefined;
if (!command) {
  console.error(usage);
  process.exit(2);
}
if (!target.token) {
  console.error(`no admin token: set ADMIN_TOKEN (npm start prints it and keeps it in .data/admin-token)`);
  process.exit(2);
}
await command();
