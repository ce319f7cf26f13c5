import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { cpuPerRequest } from './cpu.js';
import { percentile, runFor, type Send } from './load.js';

export const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

/** The machine's 1-minute load, and a wait (up to a minute) for it to fall below 1.0 first. */
export async function quietMachine(): Promise<number> {
  const load = () => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
  for (let waited = 0; load() >= 1 && waited < 60_000; waited += 2_000) await sleep(2_000);
  return load();
}

/**
 * Issue 24's targets, as ratios of figures taken in the same run (never wall-clock asserts in
 * tests): printed beside the figures they judge.
 */
export const TARGETS = {
  /** relay/Portkey req/s, images c=64 at a 50 ms upstream: at least. */
  perSecond: 0.7,
  /** relay/Portkey added p99, images c=64: at most. */
  addedP99: 2,
  /** relay (api + worker + Redis)/Portkey CPU per image request at c=64: at most. */
  ownCpu: 1.2,
  /** total api CPU per request with 4 api processes / with 1, same total load: at most. */
  apiScaleOut: 1.15,
  /** Redis commands per image request / the figure before issue 24: at most. */
  redisCommands: 0.5,
  /** 10,000 synchronous callers waiting on one api process: event-loop p99 and RSS, at most. */
  waitingLagP99Ms: 50,
  waitingRssMiB: 512,
} as const;

export interface Target {
  name: string;
  send: Send;
  /** Processes whose CPU counts for this target (with the store and simulator listed apart). */
  pids: Record<string, number>;
}

export interface Cell {
  target: string;
  concurrency: number;
  requests: number;
  ok: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  cpuMsPerRequest: Record<string, number>;
}

/** One cell: `target` under closed-loop load for `ms`, its latency, throughput and CPU per process. */
export async function measure(target: Target, concurrency: number, ms: number): Promise<Cell> {
  await runFor(Math.min(2_000, ms / 4), concurrency, target.send); // warm: connections, JIT
  const { result, perRequestMs } = await cpuPerRequest(target.pids, () => runFor(ms, concurrency, target.send));
  const requests = result.latenciesMs.length;
  return {
    target: target.name,
    concurrency,
    requests,
    ok: result.statuses['200'] ?? 0,
    perSecond: round(requests / (result.wallMs / 1000)),
    p50Ms: round(percentile(result.latenciesMs, 50)),
    p99Ms: round(percentile(result.latenciesMs, 99)),
    cpuMsPerRequest: perRequestMs,
  };
}

/** What a gateway adds to the direct call at the same concurrency. */
export const added = (cell: Cell, direct: Cell) => ({ p50Ms: round(cell.p50Ms - direct.p50Ms), p99Ms: round(cell.p99Ms - direct.p99Ms) });

/** CPU ms per request of the named processes, summed. */
export const cpuOf = (cell: Cell, names: string[]) =>
  round(
    names.reduce((sum, name) => sum + (cell.cpuMsPerRequest[name] ?? 0), 0),
    2,
  );
