/**
 * Every command the admin CLI knows, as typed after `npm run admin --`. The CLI's dispatch table
 * is keyed by this list (so neither can drift), and the docs test holds the docs to it.
 */
export const ADMIN_COMMANDS = [
  'accounts create',
  'accounts list',
  'accounts show',
  'accounts set',
  'credits add',
  'keys list',
  'keys create',
  'keys revoke',
  'webhooks add',
  'webhooks list',
  'webhooks remove',
  'webhooks deliveries',
  'channels list',
  'channels show',
  'channels add',
  'channels set',
  'channels remove',
  'usage',
  'schedule',
] as const;

export type AdminCommand = (typeof ADMIN_COMMANDS)[number];

/**
 * What each command takes after its name, as its usage shows it: `<x>` a required argument,
 * `[x]` an optional one; `note` is printed beside it in the help. Keyed by ADMIN_COMMANDS, in
 * the order the help lists them.
 */
export const ADMIN_SYNTAX: Record<AdminCommand, { args: string; note?: string }> = {
  'accounts create': { args: '<name>' },
  'accounts list': { args: '[search] [--limit n] [--cursor c]' },
  'accounts show': { args: '<accountId>' },
  'accounts set': { args: '<accountId> [--weight <n>] [--max-in-flight <n>|none]' },
  schedule: { args: '' },
  'credits add': {
    args: '<accountId> <amount> [note]',
    note: 'amount in units: 50, 0.25, -2.5 (a correction); --micro: in micro-units;\n1,000,000 units or more need --yes',
  },
  usage: { args: '<accountId> [--from ISO|ms] [--to ISO|ms] [--model id] [--user id] [--key keyId] [--limit n] [--cursor c]' },
  'keys list': { args: '<accountId>' },
  'keys create': { args: '<accountId> <name> [--rate-limit <requests per minute>]' },
  'keys revoke': { args: '<keyId>' },
  'webhooks add': { args: '<accountId> <url> [--events job.completed,job.failed]' },
  'webhooks list': { args: '<accountId>' },
  'webhooks remove': { args: '<webhookId>' },
  'webhooks deliveries': { args: '<webhookId>' },
  'channels list': { args: '' },
  'channels show': { args: '<channelId>' },
  'channels add': { args: '<channelId> <ark|gemini> <baseUrl> (--key-env VAR | --api-key KEY) [channel options]' },
  'channels set': { args: '<channelId> [channel options] [--base-url URL] [--key-env VAR | --api-key KEY] [--disable | --enable]' },
  'channels remove': { args: '<channelId>' },
};

/** `keys create <accountId> <name> [...]` as typed. */
export const syntaxOf = (command: AdminCommand) => [command, ADMIN_SYNTAX[command].args].filter(Boolean).join(' ');

/**
 * The required arguments (the `<x>` its usage leads with) that `given` leaves out or leaves
 * empty. Checked before any request: a missing id would otherwise go out as an empty path
 * segment (`POST /accounts//keys`) and come back as a 404 that names no argument.
 */
export function missingArguments(command: AdminCommand, given: readonly string[]): string[] {
  const required = /^(?:<[^>]+>\s*)*/.exec(ADMIN_SYNTAX[command].args)![0].match(/<[^>]+>/g) ?? [];
  return required.filter((_, i) => !given[i]?.trim());
}
