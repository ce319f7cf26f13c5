/**
 * Every balance change is one Lua script (lua/*.lua): the check, the change and its ledger entry
 * happen atomically, so concurrent requests can never overdraw an account and a repeated
 * settlement (a worker retry, a duplicate event) finds the reservation already closed and does
 * nothing. All keys of an account and its reservations share the prefix's hash tag.
 *
 * Account hash fields: balance (available micro-units), reserved (held for running jobs),
 * spent (lifetime charges). Ledger entries' `amount` is the change of `balance`.
 *
 * Negations are written `0 - x`: Lua's `-x` of a zero is -0, which Redis refuses as an integer
 * (a batch's hold can be carved down to nothing, or hold nothing at all).
 */
import { z } from 'zod';
import { luaCommand } from '@relay/core';
import beginLua from './lua/begin.lua';
import carveLua from './lua/carve.lua';
import closeLua from './lua/close.lua';
import creditLua from './lua/credit.lua';
import openLongerThanLua from './lua/open-longer-than.lua';
import reserveLua from './lua/reserve.lua';
import stopLua from './lua/stop.lua';

export const reservationStateSchema = z.enum(['reserved', 'started', 'settled', 'released']);
export type ReservationState = z.output<typeof reservationStateSchema>;

const accountFigures = z.tuple([z.literal([-1, 0, 1, 2]), z.number(), z.number()]);

export const reserveScript = luaCommand({
  name: 'billing.reserve',
  lua: reserveLua,
  keys: ['account', 'reservation', 'ledger', 'open'],
  args: ['amount', 'accountId', 'keyId', 'jobId', 'model', 'units', 'user', 'tracked'],
  reply: accountFigures.transform(([status, balance, reserved]) => ({ status, balance, reserved })),
});

export const carveScript = luaCommand({
  name: 'billing.carve',
  lua: carveLua,
  keys: ['hold', 'line', 'account', 'ledger', 'open'],
  args: ['amount', 'accountId', 'keyId', 'jobId', 'model', 'units', 'user'],
  reply: z.union([
    z.tuple([z.literal(0), z.literal('')]).transform(() => ({ outcome: 'short' as const })),
    z.tuple([z.literal(1), z.literal('reserved')]).transform(([, state]) => ({ outcome: 'made' as const, state })),
    // a reservation without a state (none is written so) ends the reply early: Lua's nil
    z.tuple([z.literal(2), reservationStateSchema.optional()]).transform(([, state]) => ({ outcome: 'exists' as const, state })),
  ]),
});

export const beginScript = luaCommand({
  name: 'billing.begin',
  lua: beginLua,
  keys: ['reservation', 'tell'],
  /** The lease sets follow (beginLua). */
  args: ['jobId', 'maxLength', 'token'],
  rest: true,
  reply: z.literal([0, 1, 2, 3]).transform((n) => (['cancelled', 'begin', 'stopped', 'unleased'] as const)[n]),
});

export const stopScript = luaCommand({
  name: 'billing.stop',
  lua: stopLua,
  keys: ['reservation'],
  args: [],
  reply: z.literal([0, 1]).transform((n) => n === 1),
});

export const closeScript = luaCommand({
  name: 'billing.close',
  lua: closeLua,
  keys: ['reservation', 'account', 'ledger', 'open', 'accountDay', 'relayDay'],
  args: ['type', 'charge', 'units', 'retentionSeconds', 'unitCount', 'aggregateRetentionSeconds', 'channel', 'month'],
  reply: z
    .tuple([z.literal([-1, 0, 1]), z.number(), z.number(), z.number()])
    .transform(([status, , , charged]) => ({ applied: status === 1, charged, missing: status === -1 })),
});

export const creditScript = luaCommand({
  name: 'billing.credit',
  lua: creditLua,
  keys: ['account', 'ledger'],
  args: ['amount', 'accountId', 'note', 'ceiling'],
  reply: z
    .tuple([z.literal([-2, -1, 0, 1]), z.number(), z.number()])
    .transform(([status, balance, reserved]) => ({ status, balance, reserved })),
});

export const openLongerThanScript = luaCommand({
  name: 'billing.open-longer-than',
  lua: openLongerThanLua,
  keys: ['open'],
  args: ['ageMs', 'limit'],
  reply: z.array(z.string()),
});
