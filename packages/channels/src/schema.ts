import { z } from 'zod';
import { VENDOR_NAMES, VENDORS } from '@relay/core';

/** The upstream protocols a channel can speak: the vendors of @relay/core's table, each serving one capability. */
export const CHANNEL_KINDS = VENDOR_NAMES;
const KINDS_SAID = Object.entries(VENDORS)
  .map(([vendor, { capability }]) => `"${vendor}" (${capability})`)
  .join(' or ');
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

/** Channel and capacity group names become parts of Redis keys: a closed alphabet, nothing else. */
const NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const name = (what: string) => z.string().regex(NAME, `${what}: 1-64 of a-z, 0-9, '.', '_', '-', starting with a letter or digit`);

const httpUrl = z.url({ protocol: /^https?$/, error: 'baseUrl must be an http(s) URL' }).max(2_000);
/** Public model id -> the id this channel's vendor account knows it by (an Ark endpoint id, say). */
const modelMap = z
  .record(z.string().min(1).max(200), z.string().min(1).max(200))
  .refine((m) => Object.keys(m).length <= 100, 'at most 100 models');

const tunables = {
  /** Share of traffic among the channels of one tier that have room. */
  weight: z.number().int().min(1).max(1_000),
  /** Tier: 0 is tried first; a higher tier takes traffic only while every lower one is open or full. */
  priority: z.number().int().min(0).max(9),
  /** Calls at once across every worker (0 = no limit of its own). */
  maxConcurrent: z.number().int().min(0).max(100_000),
  /** Calls per minute across every worker, spread evenly (0 = no limit of its own). */
  maxPerMinute: z.number().int().min(0).max(10_000_000),
  /** Channels of one vendor account share one capacity: their limits hold for the group together. */
  capacityGroup: name('capacityGroup').nullable(),
  timeoutMs: z.number().int().min(100).max(900_000).nullable(),
};

/** POST /admin/channels */
export const channelCreateBody = z
  .strictObject({
    id: name('id'),
    upstream: z.enum(CHANNEL_KINDS, { error: `upstream must be ${KINDS_SAID}` }),
    baseUrl: httpUrl,
    apiKey: z.string().min(1).max(4_096),
    models: modelMap
      .optional()
      .describe(
        "Public model id -> the vendor's id on this channel; default: every catalog model of this upstream kind, as the catalog maps it",
      ),
    weight: tunables.weight.default(1),
    priority: tunables.priority.default(0),
    maxConcurrent: tunables.maxConcurrent.default(0),
    maxPerMinute: tunables.maxPerMinute.default(0),
    capacityGroup: tunables.capacityGroup.optional(),
    timeoutMs: tunables.timeoutMs.optional(),
  })
  .meta({ id: 'ChannelBody' });
export type ChannelCreateBody = z.output<typeof channelCreateBody>;

/** PATCH /admin/channels/{id}: any of the fields; `models: null` goes back to the default mapping. */
export const channelPatchBody = z
  .strictObject({
    baseUrl: httpUrl,
    apiKey: z.string().min(1).max(4_096),
    models: modelMap.nullable(),
    weight: tunables.weight,
    priority: tunables.priority,
    maxConcurrent: tunables.maxConcurrent,
    maxPerMinute: tunables.maxPerMinute,
    capacityGroup: tunables.capacityGroup,
    timeoutMs: tunables.timeoutMs,
    disabled: z
      .boolean()
      .describe(
        'Take the channel out of service (or back in: false also clears a disable after a 401/403, an exhausted quota and an open breaker)',
      ),
  })
  .partial()
  .meta({ id: 'ChannelPatch' });
export type ChannelPatchBody = z.output<typeof channelPatchBody>;

export const CHANNEL_STATES = ['closed', 'open', 'exhausted', 'half-open', 'disabled'] as const;
export type ChannelState = (typeof CHANNEL_STATES)[number];

/** A channel as the admin API shows it: never its key. */
export const channelViewSchema = z
  .object({
    id: z.string(),
    upstream: z.enum(CHANNEL_KINDS),
    baseUrl: z.string(),
    source: z
      .enum(['config', 'admin'])
      .describe('config: seeded from RELAY_CONFIG and the environment at every worker start (cannot be deleted, only disabled)'),
    hasKey: z.boolean(),
    models: z.record(z.string(), z.string()).describe('The models it serves: public id -> vendor id'),
    defaultModels: z.boolean().describe('true when `models` is the default mapping'),
    weight: z.number().int(),
    priority: z.number().int(),
    maxConcurrent: z.number().int(),
    maxPerMinute: z.number().int(),
    capacityGroup: z.string().nullable(),
    timeoutMs: z.number().int().nullable(),
    disabled: z.boolean(),
    disabledReason: z.string().nullable(),
    simulated: z
      .boolean()
      .describe(
        "Its base URL is the upstream simulator's (the config file's console.simulatorUrl): what it answers is made up, not the vendor's",
      ),
    state: z
      .enum(CHANNEL_STATES)
      .describe(
        "closed: healthy; open: cooling (breaker or a 429); exhausted: the vendor's quota or spend cap is reached (openUntil: its reset, or the next probe); half-open: the next call is a probe; disabled",
      ),
    openUntil: z.number().int().nullable().describe('Epoch ms when an open or exhausted channel may be probed'),
    exhaustedReason: z
      .string()
      .nullable()
      .describe('exhausted: the vendor\'s code and message (an operator clears it with PATCH {"disabled": false})'),
    inFlight: z.number().int().describe('Calls running now, across every worker'),
    recentCalls: z.number().int().describe('Calls in the breaker window'),
    recentFailureShare: z.number().describe('Share of them that failed (5xx, timeouts, resets)'),
    latencyMs: z.number().int().nullable().describe('Recent call latency (moving average)'),
    createdAt: z.number().int(),
    updatedAt: z.number().int(),
  })
  .meta({ id: 'Channel' });
export type ChannelView = z.output<typeof channelViewSchema>;
