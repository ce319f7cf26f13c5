/**
 * The channels' scripts (lua/*.lua; keys.ts has the layout). The router's build every key from the
 * prefix and declare only the version key, which shares the prefix's hash tag, so a cluster client
 * sends them to the node that holds every channel key. The store's name their keys.
 */
import { z } from 'zod';
import { luaCommand } from '@relay/core';
import createLua from './lua/create.lua';
import patchLua from './lua/patch.lua';
import pickLua from './lua/pick.lua';
import releaseLua from './lua/release.lua';
import removeLua from './lua/remove.lua';
import renewLua from './lua/renew.lua';
import seedLua from './lua/seed.lua';

const flag = z.literal([0, 1]).transform((n) => n === 1);

/** Per candidate after the named arguments: id, tier, weight, limit sets. */
export const pickScript = luaCommand({
  name: 'channels.pick',
  lua: pickLua,
  keys: ['version'],
  args: ['prefix', 'leaseMs', 'token', 'random1', 'random2', 'candidates'],
  rest: true,
  reply: z.union([
    z.tuple([z.literal(''), z.number()]).transform(([, wait]) => ({ wait })),
    z.tuple([z.string(), z.literal([0, 1])]).transform(([id, probe]) => ({ id, probe: probe === 1 })),
  ]),
});

export const releaseScript = luaCommand({
  name: 'channels.release',
  lua: releaseLua,
  keys: ['version'],
  args: [
    'prefix',
    'id',
    'token',
    'sets',
    'outcome',
    'latencyMs',
    'delayMs',
    'windowMs',
    'minCalls',
    'failureShare',
    'cooldownMs',
    'reason',
    'consecutive',
  ],
  reply: z.enum(['closed', 'open', 'disabled']),
});

export const renewScript = luaCommand({
  name: 'channels.renew',
  lua: renewLua,
  keys: ['version'],
  args: ['prefix', 'token', 'leaseMs', 'sets', 'id'],
  reply: z.literal(1),
});

/** Field/value pairs after the id. */
export const createScript = luaCommand({
  name: 'channels.create',
  lua: createLua,
  keys: ['channel', 'all', 'version'],
  args: ['id'],
  rest: true,
  reply: flag,
});

/** Field/value pairs. */
export const patchScript = luaCommand({
  name: 'channels.patch',
  lua: patchLua,
  keys: ['channel', 'version'],
  args: [],
  rest: true,
  reply: flag,
});

export const removeScript = luaCommand({
  name: 'channels.remove',
  lua: removeLua,
  keys: ['channel', 'health', 'window', 'all', 'version', 'leases'],
  args: ['id'],
  reply: flag,
});

/** `configuredPairs` field/value pairs the config owns, then the default pairs. */
export const seedScript = luaCommand({
  name: 'channels.seed',
  lua: seedLua,
  keys: ['channel', 'all', 'version'],
  args: ['id', 'configuredPairs'],
  rest: true,
  reply: z.literal(1),
});
