import { CAPABILITIES, ownValue, VENDORS, type Catalog } from '@relay/core';
import type { ChannelRecord } from './record.js';
import type { ChannelKind } from './schema.js';

/** The catalog's models an upstream kind serves, by public id. */
function modelsOfKind(catalog: Catalog, kind: ChannelKind) {
  const models: Record<string, { upstream: string; upstreamModel: string }> = catalog[CAPABILITIES[VENDORS[kind].capability].models];
  return Object.entries(models).filter(([, m]) => ownValue(catalog.upstreams, m.upstream)?.protocol === kind);
}

/**
 * Public model id -> vendor id, for the models a channel serves: its own mapping when it has one,
 * else the catalog's (a config channel serves the models the catalog gives its upstream; an
 * added one, every model of its kind).
 */
export function servedModels(
  catalog: Catalog,
  channel: Pick<ChannelRecord, 'id' | 'upstream' | 'source' | 'models'>,
): Record<string, string> {
  if (channel.models) return channel.models;
  const served = modelsOfKind(catalog, channel.upstream).filter(([, m]) => channel.source !== 'config' || m.upstream === channel.id);
  return Object.fromEntries(served.map(([id, m]) => [id, m.upstreamModel]));
}

/** The public ids in `models` that are no model of the channel's kind: a 400 names them. */
export function unknownModels(catalog: Catalog, kind: ChannelKind, models: Record<string, string>): string[] {
  const known = new Set(modelsOfKind(catalog, kind).map(([id]) => id));
  return Object.keys(models).filter((id) => !known.has(id));
}
