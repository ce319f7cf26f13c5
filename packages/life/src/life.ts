import { createAdmission } from './admission.js';
import { createCancel } from './cancel.js';
import type { LifeDeps } from './deps.js';
import { createEnds } from './ends.js';
import { createRunning } from './running.js';

/**
 * A job's life, from admission to its end, in one place for every process: the api and the
 * batch feeder admit and cancel, the worker begins, checkpoints, settles, gives up and tells the
 * end (jobEnded) to everyone who subscribed. The steps that happen together go to Redis together.
 */
export function createJobLife(deps: LifeDeps) {
  const admission = createAdmission(deps);
  const { cancel, cancelFor, drop, stop } = createCancel(deps, admission.leaveSchedule);
  const running = createRunning(deps);
  const ends = createEnds(deps, running);
  return {
    admit: admission.admit,
    feed: admission.feed,
    cancel,
    cancelFor,
    stop,
    stopping: running.stopping,
    drop,
    begin: running.begin,
    beginning: running.beginning,
    checkpoint: running.checkpoint,
    callsOver: running.callsOver,
    settle: running.settle,
    gaveUp: running.gaveUp,
    onEnded: ends.onEnded,
    watch: ends.watch,
    /** What rides with each job's move to completed (@relay/jobs' MoveHooks): its charge before, its notice after; none behind Sentinel. */
    moveHooks: deps.replicated ? undefined : { before: running.heldCharge, after: ends.completing },
  };
}

export type JobLife = ReturnType<typeof createJobLife>;
