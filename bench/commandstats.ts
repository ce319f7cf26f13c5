import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { cpuSeconds, ioCalls } from './cpu.js';
import { runLoad, type Send } from './load.js';

/** Commands per request, biggest first. */
export type PerRequest = Array<readonly [command: string, perRequest: number]>;

export interface CommandCount {
  /** All commands per request, summed. */
  total: number;
  /** Socket reads Redis made per request (INFO stats total_reads_processed): the round trips, a pipeline being one. */
  reads?: number;
  /** Bytes the clients sent Redis and Redis sent back, per request (INFO stats total_net_*_bytes). */
  bytes?: { toRedis: number; fromRedis: number };
  /** Read and write system calls per request of each process named (sockets included). */
  ioCalls?: Record<string, { reads: number; writes: number }>;
  /** CPU milliseconds (user + system) per request of each process named. */
  cpuMs?: Record<string, number>;
  per: PerRequest;
  ok: number;
  seconds: number;
}

/** Calls of each command Redis has run so far (INFO commandstats: the commands a script runs count too). */
export async function commandStats(redis: Redis): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const line of (await redis.info('commandstats')).split('\n')) {
    const m = /^cmdstat_(\w+):calls=(\d+)/.exec(line);
    if (m) out[m[1]!] = Number(m[2]);
  }
  return out;
}

const sum = (per: PerRequest) => Math.round(per.reduce((s, [, v]) => s + v, 0) * 10) / 10;

/**
 * Every command Redis ran per request while `requests` requests ran at `concurrency`, scripts'
 * own commands included. Periodic work (heartbeats, sweeps) in the window counts too: it is part
 * of what a request costs the fleet.
 */
export async function commandsPerRequest(
  redis: Redis,
  send: Send,
  requests: number,
  concurrency: number,
  pids: Record<string, number> = {},
): Promise<CommandCount> {
  await runLoad(50, 8, send);
  // answers of the warm-up may still be settling (billing, schedule): out of the window
  await sleep(1_500);
  const before = await commandStats(redis);
  const readsBefore = await socketReads(redis);
  const bytesBefore = await netBytes(redis);
  const callsBefore = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, ioCalls(pid)]));
  const cpuBefore = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuSeconds(pid)]));
  const t0 = Date.now();
  const load = await runLoad(requests, concurrency, send);
  const seconds = (Date.now() - t0) / 1000;
  const cpuMs = Object.fromEntries(
    Object.entries(pids).map(([name, pid]) => [name, Math.round(((cpuSeconds(pid) - cpuBefore[name]!) / requests) * 1000 * 100) / 100]),
  );
  const reads = Math.round((((await socketReads(redis)) - readsBefore) / requests) * 10) / 10;
  const perRequest = (n: number) => Math.round((n / requests) * 10) / 10;
  const calls = Object.fromEntries(
    Object.entries(pids).map(([name, pid]) => {
      const now = ioCalls(pid);
      return [
        name,
        { reads: perRequest(now.reads - callsBefore[name]!.reads), writes: perRequest(now.writes - callsBefore[name]!.writes) },
      ];
    }),
  );
  const bytesAfter = await netBytes(redis);
  const bytes = {
    toRedis: Math.round((bytesAfter.in - bytesBefore.in) / requests),
    fromRedis: Math.round((bytesAfter.out - bytesBefore.out) / requests),
  };
  const after = await commandStats(redis);
  const per = Object.entries(after)
    .map(([cmd, calls]) => [cmd, Math.round(((calls - (before[cmd] ?? 0)) / requests) * 100) / 100] as const)
    .filter(([, v]) => v > 0)
    .sort((a, b) => b[1] - a[1]);
  return { total: sum(per), reads, bytes, ioCalls: calls, cpuMs, per, ok: load.statuses['200'] ?? 0, seconds };
}

/** Bytes Redis has read from its clients and written to them so far. */
async function netBytes(redis: Redis): Promise<{ in: number; out: number }> {
  const stats = await redis.info('stats');
  const field = (name: string) => Number(new RegExp(`${name}:(\\d+)`).exec(stats)?.[1] ?? 0);
  return { in: field('total_net_input_bytes'), out: field('total_net_output_bytes') };
}

/** Reads Redis has made from its clients' sockets so far: commands sent together (a pipeline, or in one tick) arrive in one. */
async function socketReads(redis: Redis): Promise<number> {
  return Number(/total_reads_processed:(\d+)/.exec(await redis.info('stats'))?.[1] ?? 0);
}

/**
 * The commands the relay's clients sent per request, one request at a time: each is a round trip
 * (MONITOR marks those a script runs "lua"; they are left out). EVALSHA is named by its script's
 * first 8 hex digits.
 */
export async function commandsSent(redis: Redis, send: Send, requests = 20): Promise<CommandCount> {
  const monitor = await redis.monitor();
  const sent = new Map<string, number>();
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    if (source.includes('lua')) return;
    const name = String(args[0]).toLowerCase();
    const label = name === 'evalsha' || name === 'eval' ? `${name} (${args[1]?.slice(0, 8)})` : name;
    sent.set(label, (sent.get(label) ?? 0) + 1);
  });
  try {
    const readsBefore = await socketReads(redis);
    const t0 = Date.now();
    const load = await runLoad(requests, 1, send);
    const seconds = (Date.now() - t0) / 1000;
    const reads = Math.round((((await socketReads(redis)) - readsBefore) / requests) * 10) / 10;
    const per = [...sent].sort((a, b) => b[1] - a[1]).map(([cmd, n]) => [cmd, Math.round((n / requests) * 100) / 100] as const);
    return { total: sum(per), reads, per, ok: load.statuses['200'] ?? 0, seconds };
  } finally {
    monitor.disconnect();
  }
}
