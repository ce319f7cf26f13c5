/**
 * BullMQ's scripts as the relay's connections run them (issue 35): BullMQ's own, each without its
 * writes to the event streams nobody reads (bull-events.ts) and its work for flows and
 * deduplication, which the relay does not use (bull-flows.ts), and the three that take a job with
 * the conditional marker (bull-marker.ts). They are defined under BullMQ's own command names
 * (`moveToActive:6.7.0`), in place of BullMQ's, on every connection the relay's queues and
 * workers use: on a cluster the client routes them by their first key, as BullMQ's.
 */
import type { Queue, Worker } from 'bullmq';
import { runSteps, valueOf, type ScriptHost, type Step, type StepOutcome } from '@relay/core';
import { withoutEventWrites } from './bull-events.js';
import { withoutFlows } from './bull-flows.js';
import { bullScripts, bullVersion, markerScripts, NONE_LEFT, type BullScript } from './bull-marker.js';

let made: BullScript[] | undefined;

/** Every BullMQ script as the relay runs it (made once; throws when BullMQ's text changed under a fix). */
export function relayScripts(): BullScript[] {
  if (made) return made;
  const takers = new Map(markerScripts().map((s) => [s.name, s]));
  made = bullScripts().map((own) => {
    const script = withoutFlows(takers.get(own.name) ?? own, bullVersion);
    return { ...script, content: withoutEventWrites(script.content).content };
  });
  return made;
}

interface ScriptClient {
  defineCommand(name: string, definition: { numberOfKeys: number; lua: string }): void;
}

/**
 * Defines the relay's scripts on `client` under BullMQ's names, replacing BullMQ's own there.
 * Throws when the client lacks one of BullMQ's names (a BullMQ that names them otherwise would
 * go on running its own).
 */
export function defineRelayScripts(client: ScriptClient): void {
  const scripts = relayScripts();
  const missing = scripts.filter((s) => typeof (client as unknown as Record<string, unknown>)[`${s.name}:${bullVersion}`] !== 'function');
  if (missing.length > 0) {
    const names = missing.map((s) => `${s.name}:${bullVersion}`).join(', ');
    throw new Error(`BullMQ's connection has no command ${names}: the relay's scripts (bull-scripts.ts) need a look`);
  }
  for (const { name, content, keys } of scripts) client.defineCommand(`${name}:${bullVersion}`, { numberOfKeys: keys, lua: content });
}

type Holder = Pick<Queue | Worker, 'backend' | 'emit'>;

/**
 * Resolves once `holder`'s connection runs the relay's scripts: BullMQ defines its own as the
 * connection comes up, these replace them right after. A failure is told as the holder's error
 * (it then runs BullMQ's own); a connection that never came up is the holder's own to meet.
 */
export function useRelayScripts(holder: Holder): Promise<void> {
  return holder.backend.connection.client.then(
    (client) => {
      try {
        defineRelayScripts(client);
      } catch (error) {
        (holder.emit as (event: 'error', error: Error) => boolean)('error', error as Error);
      }
    },
    () => undefined,
  );
}

/** What of BullMQ's Worker and its backend `blockWhenNoneLeft` wraps (its own, not in its typings as public). */
interface WorkerInside {
  backend: Record<(typeof TAKING)[number], (...args: unknown[]) => Promise<unknown>> & { moveToFinishedKeys: unknown[] };
  nextJobFromJobData(jobData?: object, ...rest: unknown[]): Promise<unknown>;
  drained: boolean;
  /** Set while the worker blocks on the marker (BZPOPMIN), waiting for a job to be added. */
  waiting: Promise<number> | null;
}
/** The backend's calls whose reply may hand a job taken: each runs one of the scripts with the conditional marker. */
const TAKING = ['moveToActive', 'moveToFinished', 'moveToDelayed'] as const;

/**
 * A worker whose take was the last job waiting (its reply says NONE_LEFT, bull-marker.ts) goes
 * to block on the marker at once, as after a fetch that found nothing: BullMQ's loop fetches
 * again whenever its concurrency is not full, and that fetch found nothing (7 commands and a
 * round trip per job while the queue keeps up). A job added meanwhile leaves the marker, so
 * the block ends at once.
 */
function blockWhenNoneLeft(worker: Worker): void {
  const inside = worker as unknown as WorkerInside;
  const last = new WeakSet<object>();
  for (const name of TAKING) {
    const own = inside.backend[name].bind(inside.backend);
    inside.backend[name] = async (...args: unknown[]) => {
      if (name === 'moveToFinished' && inside.waiting) noFetchNext(args[1], inside.backend.moveToFinishedKeys.length);
      const reply = await own(...args);
      if (Array.isArray(reply) && reply[3] === NONE_LEFT) {
        reply[3] = 0; // BullMQ's own value: no time to block until
        if (reply[0] && typeof reply[0] === 'object') last.add(reply[0] as object);
      }
      return reply;
    };
  }
  const next = inside.nextJobFromJobData.bind(worker);
  inside.nextJobFromJobData = async (jobData?: object, ...rest: unknown[]) => {
    const job = await next(jobData, ...rest);
    if (job && jobData && last.has(jobData)) inside.drained = true;
    return job;
  };
}

/**
 * A job that ends while its worker blocks on the marker takes no next job in the same step: a job
 * waiting would have left the marker and ended the block, so that fetch finds nothing (six
 * commands each time a job ends while the queue keeps up). moveToFinished's arguments: after its
 * keys, the job's id, a time, the field, the value, the target, then "fetch next" (1 or 0).
 */
function noFetchNext(args: unknown, keys: number): void {
  if (!Array.isArray(args)) return;
  const target: unknown = args[keys + 4];
  if ((target === 'completed' || target === 'failed') && args[keys + 5] === 1) args[keys + 5] = 0;
}

/**
 * Steps that ride in the same script as a job's move to completed (runSteps: one EVALSHA for
 * all, run in order with nothing between them), and what becomes of them once it answered.
 */
export interface MoveRider {
  steps: Step<unknown>[];
  /** Each step's outcome, in order (a move that could not be sent fails them all alike). */
  told(outcomes: StepOutcome<unknown>[]): void;
}

/**
 * What rides with a job's move to completed: `before` what must be in Redis before the job is
 * completed (its charge), `after` what must find it completed (the notice to its waiters). Each
 * is asked as the move goes out, with the job's id, `after` also its result as BullMQ wrote it
 * (JSON). The move may still fail (a job whose lock was lost): both have run all the same.
 */
export interface MoveHooks {
  before?: (jobId: string) => MoveRider | undefined;
  after?: (jobId: string, returnvalue: string) => MoveRider | undefined;
}

/** Workers whose moves to completed carry the hooks (from the start of their run). */
const hooked = new WeakSet<object>();

/** Whether `worker`'s moves to completed carry MoveHooks: a job's `queue` is the worker running it. */
export const movesCarryHooks = (worker: object): boolean => hooked.has(worker);

/** A hook's own trouble never stops the move. */
function told<T>(hook: () => T): T | undefined {
  try {
    return hook();
  } catch {
    return undefined; // the move goes on as BullMQ sent it
  }
}

/**
 * BullMQ runs moveToFinished as `client[name](keysThenArgs)`: after its keys come the job's id, a
 * time, the field, the value, the target. A move to completed with riders runs as one script with
 * them (the relay's moveToFinished a step among theirs); its reply is the move's, as BullMQ expects.
 */
function carryHooks(client: ScriptHost, hooks: MoveHooks): void {
  const name = `moveToFinished:${bullVersion}`;
  const script = relayScripts().find((s) => s.name === 'moveToFinished')!;
  const commands = client as unknown as Record<string, (...args: unknown[]) => unknown>;
  const own = commands[name]!;
  commands[name] = function (this: ScriptHost, ...args: unknown[]) {
    const flat = args.length === 1 && Array.isArray(args[0]) ? (args[0] as unknown[]) : args;
    const [jobId, , field, value, target] = flat.slice(script.keys);
    const completing = target === 'completed' && field === 'returnvalue' && typeof jobId === 'string' && typeof value === 'string';
    if (!completing) return own.apply(this, args);
    const before = hooks.before && told(() => hooks.before!(jobId));
    const after = hooks.after && told(() => hooks.after!(jobId, value));
    if (!before && !after) return own.apply(this, args);
    const move: Step<unknown> = {
      command: name,
      lua: script.content,
      numberOfKeys: script.keys,
      argv: flat as Step<unknown>['argv'],
      parse: (raw) => raw,
    };
    const first = before?.steps.length ?? 0;
    return runSteps(this, [...(before?.steps ?? []), move, ...(after?.steps ?? [])]).then((outcomes) => {
      if (before) told(() => before.told(outcomes.slice(0, first)));
      if (after) told(() => after.told(outcomes.slice(first + 1)));
      return valueOf(outcomes[first]!);
    });
  };
}

/**
 * Starts a worker made with `autorun: false` once its connection runs the relay's scripts: its
 * very first fetch runs them. Throws at once when the scripts cannot be made. `hooks`: what rides
 * with each job's move to completed (MoveHooks).
 */
export function runWithRelayScripts<D, R, N extends string>(worker: Worker<D, R, N>, hooks?: MoveHooks): void {
  relayScripts();
  blockWhenNoneLeft(worker as unknown as Worker);
  void useRelayScripts(worker)
    .then(async () => {
      if (hooks) {
        carryHooks((await worker.backend.connection.client) as unknown as ScriptHost, hooks);
        hooked.add(worker);
      }
      await worker.run();
    })
    .catch((error: unknown) => worker.emit('error', error as Error));
}
