import type { ChannelKind } from './schema.js';

/** A channel as stored: what the admin API set, or what the worker seeded from config. */
export interface ChannelRecord {
  id: string;
  upstream: ChannelKind;
  baseUrl: string;
  source: 'config' | 'admin';
  /** Admin channels: the key, sealed (secret.ts). */
  keySealed: string | null;
  /** Config channels: the env var the workers read the key from (never stored). */
  keyEnv: string | null;
  /** null: the default mapping (the catalog's). */
  models: Record<string, string> | null;
  weight: number;
  priority: number;
  maxConcurrent: number;
  maxPerMinute: number;
  capacityGroup: string | null;
  timeoutMs: number | null;
  disabled: boolean;
  disabledReason: string | null;
  createdAt: number;
  updatedAt: number;
}

const int = (v: string | undefined, fallback = 0) => (v === undefined || v === '' ? fallback : Number(v));
const text = (v: string | undefined) => (v === undefined || v === '' ? null : v);

export function fromHash(h: Record<string, string>): ChannelRecord {
  return {
    id: h.id!,
    upstream: h.upstream as ChannelKind,
    baseUrl: h.baseUrl ?? '',
    source: h.source === 'config' ? 'config' : 'admin',
    keySealed: text(h.keySealed),
    keyEnv: text(h.keyEnv),
    models: h.models ? (JSON.parse(h.models) as Record<string, string>) : null,
    weight: int(h.weight, 1),
    priority: int(h.priority),
    maxConcurrent: int(h.maxConcurrent),
    maxPerMinute: int(h.maxPerMinute),
    capacityGroup: text(h.capacityGroup),
    timeoutMs: text(h.timeoutMs) === null ? null : Number(h.timeoutMs),
    disabled: h.disabled === '1',
    disabledReason: text(h.disabledReason),
    createdAt: int(h.createdAt),
    updatedAt: int(h.updatedAt),
  };
}

/** Fields as the hash holds them (only those given). */
export function toHash(fields: Partial<ChannelRecord>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    if (name === 'models') out.models = value === null ? '' : JSON.stringify(value);
    else if (typeof value === 'boolean') out[name] = value ? '1' : '0';
    else if (value === null) out[name] = '';
    else if (typeof value === 'string' || typeof value === 'number') out[name] = String(value);
  }
  return out;
}
