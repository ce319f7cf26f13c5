/**
 * What BullMQ's scripts do for features the relay does not use (issue 35). The relay adds every
 * job by its own id (the request's), with no parent, children, deduplication id or priority
 * (life/admission.ts and webhook-announce.ts are the only adds; `assertPlainJob` refuses options
 * that would make one). So:
 * - moveToFinished's checks for a completing job's children (SCARD of its dependencies, ZCARD of
 *   its failed children) and its read of the job's parent and deduplication id (HMGET) find
 *   nothing, each time a job ends: three commands. They go, the job's attributes read as none.
 * - an add given its own id takes no number from the queue's counter (INCR), which only names a
 *   job added without one: the add takes it then, as before.
 * - an add does not read whether its queue is paused or at a global concurrency (HMGET of the
 *   queue's meta), which decides only whether it wakes a worker: the relay never pauses a queue
 *   nor sets a global concurrency (its own scheduler holds jobs back). Were one paused anyway,
 *   its workers would still take nothing (moveToActive reads the meta); a wake would be spent.
 *
 * Found by their exact text in the installed BullMQ; an upgrade that changes them makes
 * `withoutFlows` throw (bull-flows.test.ts fails, a worker refuses to start) instead of running
 * them half changed.
 */
import type { JobsOptions } from 'bullmq';
import type { BullScript } from './bull-marker.js';

/** moveToFinished's refusal of a job whose children are not all done: none has children. */
const CHILDREN_CHECK =
  /\n[ \t]*if rcall\("SCARD", jobIdKey \.\. ":dependencies"\) ~= 0 then\s*return -4\s*end\s*if rcall\("ZCARD", jobIdKey \.\. ":unsuccessful"\) ~= 0 then\s*return -9\s*end/;
/** Its read of the job's parent and deduplication id: none has them. */
const ATTRIBUTES_READ = 'local jobAttributes = rcall("HMGET", jobIdKey, "parentKey", "parent", "deid")';
const NO_ATTRIBUTES = 'local jobAttributes = {} -- relay (issue 35): no parent, no deduplication id';
/** An add's number from the counter, and where it is used: only for a job added without an id. */
const COUNTER = /^local jobCounter = rcall\("INCR", (KEYS\[4\]|idKey)\)$/m;
const COUNTER_USED = /\nif args\[2\] == "" then\n\s*jobId = jobCounter \.\. ""/;
/** An add's look at its queue's pause and global concurrency, only to decide whether to wake a worker. */
const PAUSE_READ = 'local isPausedOrMaxed = isQueuePausedOrMaxed(metaKey, activeKey)';
const NO_PAUSE_READ = 'local isPausedOrMaxed = false -- relay (issue 35): never paused, no global concurrency';

/**
 * The options no relay job is added with: a child or a deduplicated job (this file), or a
 * prioritized one (the relay's own scheduler orders its jobs, and the conditional marker,
 * bull-marker.ts, looks only at the wait list for a job left to take).
 */
const NOT_PLAIN = ['parent', 'deduplication', 'debounce', 'priority'] as const;

/** A relay job's options: none of those. */
export type PlainJobOptions = Omit<JobsOptions, (typeof NOT_PLAIN)[number]>;

/** Throws for job options that would make a job the relay's scripts do not run right (a child, a deduplicated or prioritized job). */
export function assertPlainJob(options: object | undefined): void {
  for (const name of NOT_PLAIN) {
    if (options && Object.hasOwn(options, name)) throw new Error(`a relay job is never added with ${name} (bull-flows.ts)`);
  }
}

/** Which scripts change, and how; each throws when its text is not there. */
const CHANGES: Record<string, (content: string, where: string) => string> = {
  moveToFinished(content, where) {
    if (!CHILDREN_CHECK.test(content) || content.split(ATTRIBUTES_READ).length !== 2) {
      throw new Error(`${where} no longer reads a job's children, parent and deduplication id as bull-flows.ts expects: it needs a look`);
    }
    return content.replace(CHILDREN_CHECK, '\n-- relay (issue 35): no job has children').replace(ATTRIBUTES_READ, NO_ATTRIBUTES);
  },
  addStandardJob(content, where) {
    if (content.split(PAUSE_READ).length !== 2) {
      throw new Error(`${where} no longer reads its queue's pause as bull-flows.ts expects: it needs a look`);
    }
    return counted(content, where).replace(PAUSE_READ, NO_PAUSE_READ);
  },
  addDelayedJob: counted,
  addPrioritizedJob: counted,
};

function counted(content: string, where: string): string {
  const counter = COUNTER.exec(content);
  if (!counter || !COUNTER_USED.test(content)) {
    throw new Error(`${where} no longer numbers a job added without an id as bull-flows.ts expects: it needs a look`);
  }
  return content.replace(
    COUNTER,
    `local jobCounter = args[2] == "" and rcall("INCR", ${counter[1]}) or 0 -- relay (issue 35): only for a job without an id`,
  );
}

/** The script without the work for features the relay does not use (the same script when it has none). */
export function withoutFlows(script: BullScript, version: string): BullScript {
  const change = Object.hasOwn(CHANGES, script.name) ? CHANGES[script.name] : undefined;
  return change ? { ...script, content: change(script.content, `BullMQ ${version}'s ${script.name}`) } : script;
}

/** The scripts `withoutFlows` changes. */
export const FLOW_SCRIPTS = Object.keys(CHANGES);
