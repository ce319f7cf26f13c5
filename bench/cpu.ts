import { readFileSync } from 'node:fs';

/** User + system CPU seconds a process has used so far (Linux /proc). */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** CPU milliseconds each process spent per request while `run` ran (requests: as `run` counted them). */
export async function cpuPerRequest<T extends { latenciesMs: unknown[] }>(pids: Record<string, number>, run: () => Promise<T>) {
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuSeconds(pid)]));
  const result = await run();
  const requests = Math.max(1, result.latenciesMs.length);
  const perRequestMs = Object.fromEntries(
    Object.entries(pids).map(([name, pid]) => [name, Math.round(((cpuSeconds(pid) - before[name]!) / requests) * 1000 * 100) / 100]),
  );
  return { result, perRequestMs };
}

/** System calls a process has made so far that read or write (Linux /proc/<pid>/io: socket reads and writes included). */
export function ioCalls(pid: number): { reads: number; writes: number } {
  const io = readFileSync(`/proc/${pid}/io`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(io)?.[1] ?? Number.NaN);
  return { reads: field('syscr'), writes: field('syscw') };
}
