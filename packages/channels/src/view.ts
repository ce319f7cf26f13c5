import type { Redis } from 'ioredis';
import type { Catalog } from '@relay/core';
import { channelKeys } from './keys.js';
import { servedModels } from './models.js';
import type { ChannelRecord } from './record.js';
import type { ChannelState, ChannelView } from './schema.js';

interface Health {
  state: ChannelState;
  openUntil: number | null;
  exhaustedReason: string | null;
  inFlight: number;
  recentCalls: number;
  recentFailureShare: number;
  latencyMs: number | null;
}

/** Breaker state, calls in flight across workers and the recent window of each channel, in one round trip. */
export async function readHealth(redis: Redis, prefix: string, channels: ChannelRecord[], now = Date.now()): Promise<Map<string, Health>> {
  const keys = channelKeys(prefix);
  const pipeline = redis.pipeline();
  for (const c of channels) {
    pipeline.hmget(keys.health(c.id), 'state', 'until', 'why', 'lat', 'span', 'reason');
    pipeline.hgetall(keys.window(c.id));
    pipeline.zcount(keys.ownLeases(c.id), now, '+inf');
  }
  const replies = ((await pipeline.exec()) ?? []).map(([, value]) => value);
  const out = new Map<string, Health>();
  channels.forEach((c, i) => {
    const [state, until, why, lat, span, reason] = (replies[3 * i] as Array<string | null>) ?? [];
    const window = (replies[3 * i + 1] as Record<string, string>) ?? {};
    const bucket = span ? Math.floor(now / Number(span)) : 0;
    let calls = 0;
    let failures = 0;
    for (const [field, count] of Object.entries(window)) {
      const [b, kind] = field.split(':');
      if (span && Number(b) <= bucket - 6) continue;
      if (kind === 'n') calls += Number(count);
      else failures += Number(count);
    }
    const openUntil = state === 'open' ? Number(until ?? 0) : null;
    const exhausted = openUntil !== null && openUntil > now && why === 'exhausted';
    out.set(c.id, {
      state: c.disabled ? 'disabled' : openUntil === null ? 'closed' : exhausted ? 'exhausted' : openUntil > now ? 'open' : 'half-open',
      openUntil,
      exhaustedReason: exhausted ? (reason ?? null) : null,
      inFlight: Number(replies[3 * i + 2] ?? 0),
      recentCalls: calls,
      recentFailureShare: calls ? Math.round((failures / calls) * 1000) / 1000 : 0,
      latencyMs: lat ? Number(lat) : null,
    });
  });
  return out;
}

/** Whether `baseUrl` is on the simulator's origin (scheme, host and port). */
function onSimulator(baseUrl: string, simulatorUrl: string | undefined) {
  if (!simulatorUrl) return false;
  try {
    return new URL(baseUrl).origin === new URL(simulatorUrl).origin;
  } catch {
    return false;
  }
}

/** Channels as the admin API shows them (never a key); `simulatorUrl` marks those that point at the simulator. */
export async function channelViews(
  redis: Redis,
  prefix: string,
  catalog: Catalog,
  channels: ChannelRecord[],
  simulatorUrl?: string,
): Promise<ChannelView[]> {
  const health = await readHealth(redis, prefix, channels);
  return channels.map((c) => ({
    id: c.id,
    upstream: c.upstream,
    baseUrl: c.baseUrl,
    source: c.source,
    hasKey: c.keySealed !== null || c.keyEnv !== null,
    models: servedModels(catalog, c),
    defaultModels: c.models === null,
    weight: c.weight,
    priority: c.priority,
    maxConcurrent: c.maxConcurrent,
    maxPerMinute: c.maxPerMinute,
    capacityGroup: c.capacityGroup,
    timeoutMs: c.timeoutMs,
    disabled: c.disabled,
    disabledReason: c.disabledReason,
    simulated: onSimulator(c.baseUrl, simulatorUrl),
    ...health.get(c.id)!,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  }));
}
