/**
 * The admin API from a terminal. It talks to ADMIN_URL with ADMIN_TOKEN, or without them to the
 * relay `npm start` runs from this checkout (see cli-target.ts). The commands are in `usage`
 * below (and ADMIN_COMMANDS); answers print as tables, or with --json as the API's JSON.
 */
import { parseArgs } from 'node:util';
import { closestMatch } from 'leven';
import { formatMoney, parseUnits } from '@relay/core/money';
import { npmCommand, npmRunCommand } from '@relay/core/npm-command';
import { forPeople } from './cli-output.js';
import { ADMIN_COMMANDS, ADMIN_SYNTAX, missingArguments, syntaxOf, type AdminCommand } from './cli-commands.js';
import { findAdminTarget, protectNegatives } from './cli-target.js';

// as the user can type it again where they are (npm --prefix <checkout> from a folder of their own)
const admin = npmRunCommand('admin');
/** A command's line of the help: its syntax, and its note beside it (in a column of its own). */
const helpLine = (command: AdminCommand) => {
  const { note } = ADMIN_SYNTAX[command];
  if (!note) return `  ${syntaxOf(command)}`;
  const column = 45;
  return `  ${syntaxOf(command)}`.padEnd(column) + note.split('\n').join(`\n${' '.repeat(column)}`);
};
const usage = `usage: ${admin} <command> [options]
${(Object.keys(ADMIN_SYNTAX) as AdminCommand[]).map(helpLine).join('\n')}
    channel options: --weight n  --priority n (0 first)  --max-concurrent n  --max-per-minute n
                     --group name|none (a shared capacity)  --models public=vendor,... | default
                     --timeout-ms n|default   (--key-env reads the key from that variable, out of shell history)
  help, --help, -h    this text
  --json              the API's answer as JSON (for scripts) instead of tables

  Money is shown and typed in units of the account's currency (1 unit = 1,000,000 micro-units,
  the integers the admin API takes and answers). The relay: ADMIN_URL and ADMIN_TOKEN, else
  the one npm start runs from this checkout.`;

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
  micro: { type: 'boolean' },
  yes: { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** A mistake in the command line: one line that says what is wrong (then the command's usage, when it is known), exit 2. */
function usageError(message: string, command?: AdminCommand): never {
  console.error(`${message}\n${command ? `usage: ${admin} ${syntaxOf(command)}\n` : ''}see: ${admin} --help`);
  process.exit(2);
}

/** The known word close enough to `typed` to be the one meant (a typo, not another word). */
const nearest = (typed: string, known: readonly string[]) =>
  closestMatch(typed, known, { maxDistance: Math.max(2, Math.floor(typed.length / 3)) });
const didYouMean = (match: string | undefined) => (match ? `; did you mean '${match}'?` : '');

const parsed = (() => {
  try {
    return parseArgs({ args, allowPositionals: true, options });
  } catch (error) {
    const option = /'(-[^']*)'/.exec((error as Error).message)?.[1];
    if ((error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option)
      usageError(
        `unknown option '${option}'${didYouMean(
          nearest(
            option,
            Object.keys(options).map((o) => `--${o}`),
          ),
        )}`,
      );
    usageError((error as Error).message);
  }
})();
const values = parsed.values;
const positionals = parsed.positionals.map(restore);

/** The admin API's message in its error answer, else the answer as it is. */
const messageOf = (text: string) => {
  try {
    return (JSON.parse(text) as { error: { message: string } }).error.message || text;
  } catch {
    return text;
  }
};

/**
 * One admin call, its answer printed (a table, or --json as the API's JSON), and returned;
 * expected failures are one line on stderr and exit 1, never a stack.
 */
async function call(method: string, path: string, body?: unknown, intro?: (answer: Record<string, unknown>) => string) {
  let res: Response;
  try {
    res = await fetch(`${target.url}/admin${path}`, {
      method,
      headers: { authorization: `Bearer ${target.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
  } catch {
    console.error(
      `no relay answers at ${target.url} (from ${target.from}): start one with ${npmCommand()} start, or set ADMIN_URL and ADMIN_TOKEN`,
    );
    process.exit(1);
  }
  const text = await res.text();
  if (res.status === 401 || res.status === 403) {
    console.error(`the relay at ${target.url} refused the admin token: set ADMIN_TOKEN to the one it runs with`);
    process.exit(1);
  }
  if (!res.ok) {
    console.error(`${method} ${path} -> ${res.status}: ${messageOf(text)}`);
    process.exit(1);
  }
  const answer = JSON.parse(text) as Record<string, unknown>;
  if (values.json) return void console.log(JSON.stringify(answer, null, 2));
  if (intro) console.log(intro(answer));
  console.log(forPeople(answer));
}

/** 1,000,000 units, in micro-units: a credit this large must be confirmed. */
const LARGE = 1_000_000 * 1_000_000;

/** A credit's amount: units as typed (exact, no float), or with --micro an integer of micro-units. */
function creditAmount(text: string | undefined): number {
  if (text === undefined) usageError('credits add needs an account and an amount: credits add <accountId> <amount> [note]');
  if (values.micro) {
    if (!/^[-+]?\d{1,15}$/.test(text)) usageError(`--micro takes a whole number of micro-units, not '${text}'`);
    return Number(text);
  }
  const micro = parseUnits(text);
  if (micro === undefined)
    usageError(`amount '${text}' is not a number of units such as 50, 0.25 or -2.5 (at most 6 decimals); --micro takes micro-units`);
  // amounts were micro-units before: an old `credits add acct 50000000` must not add 50 million units
  if (Math.abs(micro) >= LARGE && !values.yes)
    usageError(
      `${formatMoney(micro)} units is a lot: amounts are in units (50 = 50.00). Add --micro if '${text}' is micro-units, or --yes if you mean it`,
    );
  return micro;
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

// keyed by ADMIN_COMMANDS: a command without an entry (or an entry no list names) is a compile error
const commands: Record<AdminCommand, () => Promise<void>> = {
  'accounts create': () => call('POST', '/accounts', { name: rest.join(' ') }),
  'accounts list': () => call('GET', `/accounts${query(rest.length ? { q: rest.join(' ') } : {})}`),
  'accounts show': () => call('GET', `/accounts/${id(rest[0])}`),
  'credits add': () => {
    const amount = creditAmount(rest[1]);
    return call(
      'POST',
      `/accounts/${id(rest[0])}/credits`,
      { amount, ...(rest[2] ? { note: rest.slice(2).join(' ') } : {}) },
      () => `${amount < 0 ? 'took' : 'added'} ${formatMoney(Math.abs(amount))} (${Math.abs(amount).toLocaleString('en-US')} micro-units)`,
    );
  },
  'keys list': () => call('GET', `/accounts/${id(rest[0])}/keys`),
  'keys create': () =>
    call(
      'POST',
      `/accounts/${id(rest[0])}/keys`,
      { name: rest.slice(1).join(' '), ...(values['rate-limit'] ? { rateLimitPerMinute: Number(values['rate-limit']) } : {}) },
      (key) => `the key's secret, shown this once: ${String(key.key)}`,
    ),
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

const GROUPS = [...new Set(Object.keys(commands).map((c) => c.split(' ')[0]!))];
if (values.help || first === 'help') {
  console.log(usage);
  process.exit(0);
}
if (first === undefined) {
  console.error(usage);
  process.exit(2);
}
const isCommand = (value: string): value is AdminCommand => (ADMIN_COMMANDS as readonly string[]).includes(value);
// two words (`accounts create`) or one (`usage`, `schedule`)
const name = [`${first} ${second}`, first].find(isCommand);
if (!name) {
  if (!GROUPS.includes(first)) {
    const meant = nearest(first, [...GROUPS, 'help']);
    usageError(`unknown command '${first}'${meant ? didYouMean(meant) : `; the commands: ${[...GROUPS, 'help'].join(', ')}`}`);
  }
  const subcommands = Object.keys(commands)
    .filter((c) => c.startsWith(`${first} `))
    .map((c) => c.split(' ')[1]!);
  if (second === undefined) usageError(`'${first}' needs one of: ${subcommands.join(', ')}`);
  const meant = nearest(second, subcommands);
  usageError(`unknown command '${first} ${second}'${didYouMean(meant && `${first} ${meant}`)}`);
}
const missing = missingArguments(name, positionals.slice(name.split(' ').length));
if (missing.length) usageError(`'${name}' needs ${missing.join(', ').replace(/, ([^,]*)$/, ' and $1')}`, name);
const command = commands[name];
if (!target.token) {
  console.error(`no admin token: set ADMIN_TOKEN (npm start prints it and keeps it in .data/admin-token)`);
  process.exit(2);
}
await command();
