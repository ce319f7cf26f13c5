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
