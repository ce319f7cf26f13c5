import { ConfigError, resolveUpstream, type Catalog } from '@relay/core';
import type { ConfigChannel } from '@relay/channels';

const NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/**
 * The catalog's upstreams as channels (id = the upstream's name), addressed as this process's
 * environment says: an operator who configures no channel gets exactly today's single upstream
 * per protocol.
 */
export function configChannels(catalog: Catalog, timeoutOverrideMs: number | undefined): ConfigChannel[] {
  return Object.entries(catalog.upstreams).map(([id, configured]) => {
    if (!NAME.test(id)) throw new ConfigError(`RELAY_CONFIG: upstream "${id}" names a channel: use 1-64 of a-z, 0-9, '.', '_', '-'`);
    const resolved = resolveUpstream(configured);
    return {
      id,
      upstream: configured.protocol,
      baseUrl: resolved.baseUrl,
      keyEnv: configured.apiKeyEnv,
      timeoutMs: timeoutOverrideMs ?? configured.timeoutMs,
    };
  });
}
