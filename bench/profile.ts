import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

interface CpuNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

/** The functions with the most self time in a V8 .cpuprofile, grouped by package or file. */
export function topSelfTime(file: string, count = 12) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as { nodes: CpuNode[]; samples: number[] };
  const hits = new Map<number, number>();
  for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
  const byWhere = new Map<string, number>();
  for (const node of profile.nodes) {
    const url = node.callFrame.url;
    const where = url.includes('node_modules/')
      ? url
          .slice(url.lastIndexOf('node_modules/') + 13)
          .split('/')
          .slice(0, url.includes('node_modules/@') ? 2 : 1)
          .join('/')
      : url.startsWith('node:') || url === ''
        ? `${node.callFrame.functionName || '(native)'} ${url || ''}`.trim()
        : url.replace(/^.*\/(apps|packages|dist)\//, '$1/');
    byWhere.set(where, (byWhere.get(where) ?? 0) + (hits.get(node.id) ?? 0));
  }
  const total = profile.samples.length;
  return [...byWhere.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([where, n]) => ({ where, share: Math.round((n / total) * 1000) / 10 }));
}

export const profilesIn = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => join(dir, f));
