/** Every page of the console, in the navigation's order; `path` is under /console. */
export const BASE = '/console';

export interface NavEntry {
  path: string;
  label: string;
  /** Pages served by the relay itself, outside the console. */
  external?: boolean;
}

export const NAV: NavEntry[] = [
  { path: `${BASE}`, label: 'Overview' },
  { path: `${BASE}/accounts`, label: 'Accounts' },
  { path: `${BASE}/queues`, label: 'Queues' },
  { path: `${BASE}/scheduling`, label: 'Scheduling' },
  { path: `${BASE}/channels`, label: 'Channels' },
  { path: `${BASE}/batches`, label: 'Batches' },
  { path: `${BASE}/playground`, label: 'Playground' },
  { path: '/docs', label: 'API reference', external: true },
];

export const accountPath = (id: string) => `${BASE}/accounts/${encodeURIComponent(id)}`;
