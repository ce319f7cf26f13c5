/**
 * The steps of a batch that must not be seen half done (lua/*.lua; keys.ts has the layout, every
 * key under the prefix's hash tag).
 */
import { z } from 'zod';
import { luaCommand } from '@relay/core';
import cancelLua from './lua/cancel.lua';
import endLua from './lua/end.lua';
import feedLineLua from './lua/feed-line.lua';
import flushedLua from './lua/flushed.lua';
import recordLua from './lua/record.lua';
import { BATCH_STATUSES } from './schema.js';

const flag = z.literal([0, 1]).transform((n) => n === 1);

export const feedLineScript = luaCommand({
  name: 'batch.feed-line',
  lua: feedLineLua,
  keys: ['done', 'inflight', 'offsets'],
  args: ['line', 'offset'],
  reply: flag,
});

export const recordScript = luaCommand({
  name: 'batch.record',
  lua: recordLua,
  keys: ['batch', 'done', 'inflight', 'offsets', 'records', 'reservation'],
  args: ['line', 'kind', 'output', 'images', 'audioMs'],
  reply: flag,
});

export const flushedScript = luaCommand({
  name: 'batch.flushed',
  lua: flushedLua,
  keys: ['batch', 'records'],
  args: ['count', 'part'],
  reply: flag,
});

export const cancelScript = luaCommand({
  name: 'batch.cancel',
  lua: cancelLua,
  keys: ['batch'],
  args: ['now'],
  // '': no such batch
  reply: z.union([z.enum(BATCH_STATUSES), z.literal('').transform(() => undefined)]),
});

export const endScript = luaCommand({
  name: 'batch.end',
  lua: endLua,
  keys: ['batch', 'active'],
  args: ['status', 'now', 'outputFileId', 'errorFileId'],
  reply: z.literal(1),
});
