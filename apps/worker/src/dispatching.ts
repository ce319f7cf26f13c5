import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { every, type Logger } from '@relay/core';
import type { QueueName } from '@relay/jobs';
import type { Scheduler } from '@relay/scheduler';

export interface DispatchSettings {
  schedulers: Record<QueueName, Scheduler>;
  /**
   * Per queue, asked at every tick: jobs this process runs at once, and the most the whole pool
   * may be handed (0 = what the workers run); the upstream's capacity may change at run time.
   */
  windows: (queue: QueueName) => { concurrency: number; cap: number };
  log: Logger;
}

const TICK_MS = 500;
const HEARTBEAT_TTL_MS = 5_000;
const RECOVER_EVERY_TICKS = 10;

/**
 * The workers' part of the schedule: every tick this process says how many jobs it runs (the
 * window is what all live workers run, or the cap when the upstream takes fewer), dispatches in
 * case nobody else did, and now and then finishes what a crash interrupted. A job's own steps
 * (its calls over, its end) free its place through @relay/life.
 */
export function startDispatching(settings: DispatchSettings) {
  const workerId = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  let ticks = 0;
  const tick = async () => {
    ticks += 1;
    for (const [name, scheduler] of Object.entries(settings.schedulers) as Array<[QueueName, Scheduler]>) {
      const { concurrency, cap } = settings.windows(name);
      await scheduler.heartbeat(workerId, concurrency, HEARTBEAT_TTL_MS, cap);
      await scheduler.dispatch();
      if (ticks % RECOVER_EVERY_TICKS === 0) await scheduler.recover();
    }
  };
  const tickFailed = (err: Error) => settings.log.warn({ err: err.message }, 'schedule tick failed; trying again');
  const stop = every(TICK_MS, tick, tickFailed);
  void tick().catch(tickFailed);
  return { stop };
}
