import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { every, type Logger } from '@relay/core';
import type { QueueName } from '@relay/jobs';
import { schedulerFor, type Dispatched, type Scheduler } from '@relay/scheduler';

export interface DispatchSettings {
  redis: Redis;
  prefix: string;
  queues: Record<QueueName, Queue>;
  workers: Worker[];
  /**
   * Per queue, asked at every tick: jobs this process runs at once, and the most the whole pool
   * may be handed (0 = what the workers run); the upstream's capacity may change at run time.
   */
  windows: (queue: QueueName) => { concurrency: number; cap: number };
  onDispatched: (queue: QueueName, picks: Dispatched[]) => void;
  log: Logger;
}

const TICK_MS = 500;
const HEARTBEAT_TTL_MS = 5_000;
const RECOVER_EVERY_TICKS = 10;

/**
 * The workers' part of the schedule: a job that ends frees its slot (and its account's share)
 * and lets the next one in at once; every tick this process says how many jobs it runs (the
 * window is what all live workers run, or the cap when the upstream takes fewer), dispatches
 * in case nobody else did, and now and then finishes what a crash interrupted.
 */
export function startDispatching(settings: DispatchSettings) {
  const workerId = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const schedulers = {} as Record<QueueName, Scheduler>;
  // jobs whose place this process already freed when their calls were over: their end needs no
  // second round trip (the schedule would ignore it anyway)
  const freed = new Set<string>();
  for (const worker of settings.workers) {
    const name = worker.name as QueueName;
    const log = settings.log.child({ queue: name });
    const scheduler = schedulerFor(settings.redis, settings.queues[name], settings.prefix, name, {
      onDispatched: (picks) => settings.onDispatched(name, picks),
      onError: (err) => log.warn({ err: err.message }, 'dispatch failed; trying again at the next tick'),
    });
    schedulers[name] = scheduler;
  }
  let ticks = 0;
  const tick = async () => {
    ticks += 1;
    for (const [name, scheduler] of Object.entries(schedulers) as Array<[QueueName, Scheduler]>) {
      const { concurrency, cap } = settings.windows(name);
      await scheduler.heartbeat(workerId, concurrency, HEARTBEAT_TTL_MS, cap);
      await scheduler.dispatch();
      if (ticks % RECOVER_EVERY_TICKS === 0) await scheduler.recover();
    }
  };
  const tickFailed = (err: Error) => settings.log.warn({ err: err.message }, 'schedule tick failed; trying again');
  const stop = every(TICK_MS, tick, tickFailed);
  void tick().catch(tickFailed);
  return {
    schedulers,
    /** A job ended for good (job-ends.ts): its place, unless freed already when its calls were over. */
    ended(name: QueueName, jobId: string | undefined) {
      if (!jobId || freed.delete(jobId)) return;
      schedulers[name]
        .finished(jobId)
        .then(({ pending }) => pending && schedulers[name].nudge())
        .catch((err: Error) =>
          settings.log.warn({ jobId, err: err.message }, 'could not end a job in the schedule; the next recovery will'),
        );
    },
    /** A job is past its upstream calls: its place in the window goes to the next one now. */
    callsOver(name: QueueName, jobId: string) {
      const scheduler = schedulers[name];
      if (freed.size > 100_000) freed.clear(); // ids of jobs that never ended here (taken over elsewhere)
      freed.add(jobId);
      scheduler
        .finished(jobId)
        .then(({ pending }) => pending && scheduler.nudge())
        .catch((err: Error) => settings.log.warn({ jobId, err: err.message }, 'could not free a place in the schedule; the job end will'));
    },
    stop,
  };
}
