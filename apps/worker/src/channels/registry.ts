import { every, VENDORS, type Catalog, type Logger, type Vendor } from '@relay/core';
import {
  ownSetName,
  servedModels,
  type Candidate,
  type ChannelRecord,
  type ChannelStore,
  type KeySealer,
  type LimitSet,
} from '@relay/channels';
import type { QueueName } from '@relay/jobs';
import type { ChannelAdapter } from '../upstreams/adapters.js';
import type { UpstreamTarget } from '../upstreams/post-json.js';
import type { CallObserver } from '../metrics.js';

/** A channel this worker can call: what it serves, its adapter, and the capacity a call takes. */
export interface LiveChannel {
  record: ChannelRecord;
  /** Public model id -> the vendor's id on this channel. */
  models: Record<string, string>;
  /** Its vendor's adapter, and the capability it serves. */
  adapter: ChannelAdapter;
  candidate: Candidate;
}

export interface RegistrySettings {
  store: ChannelStore;
  catalog: Catalog;
  /** Opens admin channels' keys; without it they cannot be used (a warning says so). */
  sealer: KeySealer | undefined;
  /** Every upstream call's deadline unless the channel has its own. */
  timeoutMs: (record: ChannelRecord) => number;
  /** The queue-wide limits (the config file's `queues`): a limit set every call of the queue takes. */
  pools: Record<QueueName, { maxConcurrent: number; maxPerMinute: number }>;
  refreshMs: number;
  /** The adapter a channel of `vendor` makes (the worker's capability table, capabilities.ts). */
  adapterOf: (vendor: Vendor, target: UpstreamTarget, observe: CallObserver) => ChannelAdapter;
  observe: (channel: string) => CallObserver;
  /** Told of each version loaded (a metric: operators and tests see when a change reached a worker). */
  onLoaded?: (version: number) => void;
  log: Logger;
}

/** The smallest non-zero of the members' limits: channels of one vendor account share the account's. */
function groupLimits(members: ChannelRecord[], name: string): LimitSet {
  const least = (values: number[]) => Math.min(...values.filter((v) => v > 0), Number.MAX_SAFE_INTEGER);
  const cap = (v: number) => (v === Number.MAX_SAFE_INTEGER ? 0 : v);
  return {
    name: `grp:${name}`,
    maxConcurrent: cap(least(members.map((m) => m.maxConcurrent))),
    maxPerMinute: cap(least(members.map((m) => m.maxPerMinute))),
  };
}

/**
 * The channels as Redis has them, kept current: reloaded whenever their version moves (checked
 * every `refreshMs`), adapters made again only for channels whose address, key or deadline changed.
 */
export async function startChannelRegistry(settings: RegistrySettings) {
  const { store, log } = settings;
  let live: LiveChannel[] = [];
  let version = -1;
  const adapters = new Map<string, { signature: string; made: ChannelAdapter }>();
  const unopenable = new Set<string>();

  function keyOf(record: ChannelRecord): string | undefined {
    if (record.keyEnv !== null) return process.env[record.keyEnv] ?? '';
    if (record.keySealed === null) return '';
    try {
      if (!settings.sealer) throw new Error('CHANNEL_SECRET is not set');
      unopenable.delete(record.id);
      return settings.sealer.open(record.keySealed);
    } catch (error) {
      if (!unopenable.has(record.id))
        log.error(
          { channel: record.id, err: (error as Error).message },
          "cannot open the channel's key: it takes no calls (set the CHANNEL_SECRET the api sealed it with)",
        );
      unopenable.add(record.id);
      return undefined;
    }
  }

  function build(records: ChannelRecord[]): LiveChannel[] {
    const groups = new Map<string, ChannelRecord[]>();
    for (const r of records) if (r.capacityGroup) groups.set(r.capacityGroup, [...(groups.get(r.capacityGroup) ?? []), r]);
    const out: LiveChannel[] = [];
    for (const record of records) {
      if (record.disabled) continue;
      const apiKey = keyOf(record);
      if (apiKey === undefined) continue;
      const queue = VENDORS[record.upstream].capability;
      const upstream = { baseUrl: record.baseUrl.replace(/\/+$/, ''), apiKey, timeoutMs: settings.timeoutMs(record) };
      const signature = JSON.stringify(upstream);
      let kept = adapters.get(record.id);
      if (kept?.signature !== signature) {
        kept = { signature, made: settings.adapterOf(record.upstream, upstream, settings.observe(record.id)) };
        adapters.set(record.id, kept);
      }
      const { made } = kept;
      const group = record.capacityGroup ? groupLimits(groups.get(record.capacityGroup)!, record.capacityGroup) : undefined;
      const pool = settings.pools[queue];
      const sets: LimitSet[] = [
        { name: ownSetName(record.id), maxConcurrent: group ? 0 : record.maxConcurrent, maxPerMinute: group ? 0 : record.maxPerMinute },
        ...(group ? [group] : []),
        ...(pool.maxConcurrent > 0 || pool.maxPerMinute > 0 ? [{ name: `pool:${queue}`, ...pool }] : []),
      ];
      out.push({
        record,
        models: servedModels(settings.catalog, record),
        adapter: made,
        candidate: { id: record.id, tier: record.priority, weight: record.weight, sets },
      });
    }
    return out;
  }

  async function refresh() {
    const now = await store.version();
    if (now === version) return;
    const records = await store.list();
    live = build(records);
    version = now;
    settings.onLoaded?.(version);
    for (const id of adapters.keys()) if (!records.some((r) => r.id === id)) adapters.delete(id);
    log.info({ channels: live.map((c) => c.record.id), version }, 'channels loaded');
  }

  await refresh();
  const stop = every(settings.refreshMs, refresh, (error) =>
    log.warn({ err: error.message }, 'could not reload the channels; trying again'),
  );
  return {
    /** The channels that serve `model` on `queue` now, enabled and callable. */
    serving(queue: QueueName, model: string): LiveChannel[] {
      return live.filter((c) => c.adapter.capability === queue && Object.hasOwn(c.models, model));
    },
    /**
     * Calls the enabled channels of `queue` can take at once, all together (a capacity group
     * counted once), or 0 when one of them has no limit: the fair schedule's window follows it.
     */
    capacity(queue: QueueName): number {
      const counted = new Set<string>();
      let total = 0;
      for (const c of live.filter((l) => l.adapter.capability === queue)) {
        const [own, group] = c.candidate.sets;
        const limit = group?.name.startsWith('grp:') ? group : own!;
        if (limit.maxConcurrent === 0) return 0;
        if (!counted.has(limit.name)) total += limit.maxConcurrent;
        counted.add(limit.name);
      }
      return total;
    },
    refresh,
    stop,
  };
}

export type ChannelRegistry = Awaited<ReturnType<typeof startChannelRegistry>>;
