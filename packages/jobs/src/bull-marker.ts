/**
 * BullMQ's marker (issue 35). A worker with nothing to do blocks on its queue's marker (BZPOPMIN
 * on a sorted set); an add leaves member "0" there to wake one, a delayed job member "1" scored
 * with the time the next one is due. Each job BullMQ moves to active leaves "0" again
 * (prepareJobForProcessing: `addBaseMarkerIfNeeded(markerKey, false)`, always), so that another
 * worker wakes for the jobs still waiting: but when the job taken was the last one, its own worker
 * runs its fetch again, finds nothing, wakes at once on the marker it just left, fetches a third
 * time and only then blocks: two round trips and about 8 commands for nothing, each job.
 *
 * The relay's workers run BullMQ's own scripts with that one line replaced: "0" only while a job
 * is still waiting (the wait list not empty: no relay job is prioritized, bull-flows.ts); else
 * no "0" (one left by an earlier take is stale: taking the last job removes it), and "1" at the
 * next delayed job's time when there is one, so that a blocked worker still learns when to look,
 * as it did from the fetch BullMQ's "0" made it run. Every script that takes a job does it in
 * that one place: moveToActive (the fetch), moveToFinished and moveToDelayed (the next job taken
 * in the same step as one ends or is put off). The same place also says, in the reply with the
 * job taken, whether it was the last (NONE_LEFT): the worker then blocks at once instead of
 * running its fetch again because its concurrency is not full (bull-scripts.ts,
 * `blockWhenNoneLeft`).
 *
 * The lines and the keys each script is given are found by exact text in the installed BullMQ;
 * when a BullMQ upgrade changes them, `markerScripts` throws (bull-marker.test.ts fails, and a
 * worker process refuses to start) instead of running unpatched or patched wrong.
 */
import { createRequire } from 'node:module';

export interface BullScript {
  name: string;
  content: string;
  keys: number;
}

/**
 * A taken job's reply says, in its block-until value (BullMQ's 0 there), that no job is left to
 * take: the worker then blocks on the marker instead of fetching again (`blockWhenNoneLeft`).
 */
export const NONE_LEFT = -1;

/** The line of prepareJobForProcessing that leaves the marker whatever is left. */
export const UNCONDITIONAL_MARKER = '\n  addBaseMarkerIfNeeded(markerKey, false)\n';

/**
 * Where each script that takes a job has the keys the condition reads (its header's KEYS[n] lines,
 * checked); `firstKnown`: the delayed set's first job was already read by the take's promotion of
 * due jobs (withDelayedFirst), and is not read again.
 */
const TAKERS = {
  moveToActive: { wait: 1, delayed: 7, firstKnown: true },
  moveToFinished: { wait: 1, delayed: 7, firstKnown: false },
  moveToDelayed: { wait: 9, delayed: 4, firstKnown: false },
} as const;
export type Taker = keyof typeof TAKERS;

const conditionalMarker = (keys: (typeof TAKERS)[Taker]) => {
  const read = `rcall("ZRANGE", KEYS[${keys.delayed}], 0, 0, "WITHSCORES")`;
  return `
  -- relay (issue 35): "0" only while a job is left to take; else none, and the next delayed job's time
  local relayNoneLeft = 0
  if rcall("LLEN", KEYS[${keys.wait}]) > 0 then
    rcall("ZADD", markerKey, 0, "0")
  else
    relayNoneLeft = ${NONE_LEFT}
    rcall("ZREM", markerKey, "0")
    local nextDelayed = ${keys.firstKnown ? `(relayDelayedFirst or ${read})` : read}[2]
    if nextDelayed then rcall("ZADD", markerKey, tonumber(nextDelayed) / 0x1000, "1") end
  end
`;
};

/** moveToActive's promotion of the delayed jobs due: a range read of the delayed set, each take. */
export const DUE_READ = '\n    local jobs = rcall("ZRANGEBYSCORE", delayedKey, 0, (timestamp + 1) * 0x1000 - 1, "LIMIT", 0, 1000)\n';
const dueAfterFirst = `
    -- relay (issue 35): the set's first job read first, the due ones only when it is due; when
    -- none is, that read is the one the conditional marker needs, and it is kept for it
    local jobs = {}
    local relayFirst = rcall("ZRANGE", delayedKey, 0, 0, "WITHSCORES")
    if relayFirst[2] and tonumber(relayFirst[2]) <= (timestamp + 1) * 0x1000 - 1 then
      jobs = rcall("ZRANGEBYSCORE", delayedKey, 0, (timestamp + 1) * 0x1000 - 1, "LIMIT", 0, 1000)
    else
      relayDelayedFirst = relayFirst
    end
`;
const RCALL = '\nlocal rcall = redis.call\n';

/**
 * moveToActive with its promotion of due delayed jobs reading the set's first job before any
 * range: a take with nothing due (most of them) then reads the delayed set once, not twice (the
 * promotion's range, then the conditional marker's next time). Nothing comes between the two in
 * moveToActive (no job is put off in it); the other takers read for the marker themselves.
 */
export function withDelayedFirst(script: BullScript): BullScript {
  const where = `BullMQ ${bullVersion}'s ${script.name}`;
  if (script.content.split(DUE_READ).length !== 2 || script.content.split(RCALL).length !== 2) {
    throw new Error(`${where} no longer promotes its due delayed jobs as bull-marker.ts expects: it needs a look`);
  }
  const content = script.content
    .replace(RCALL, `${RCALL}local relayDelayedFirst -- relay (issue 35): the delayed set's first job, when already read\n`)
    .replace(DUE_READ, dueAfterFirst);
  return { ...script, content };
}

/** The line that hands the job taken back: its last value (the time until which to block, 0) says whether it was the last. */
export const TAKEN_REPLY = '\n  return {rcall("HGETALL", jobKey), jobId, 0, 0} -- get job data\n';
const takenReply = '\n  return {rcall("HGETALL", jobKey), jobId, 0, relayNoneLeft} -- relay: NONE_LEFT when it was the last\n';

// BullMQ's package has no exports map: these paths are its build's, the ones its connections read
const fromBull = createRequire(import.meta.url);
/** The version BullMQ names its commands with (`moveToActive:6.7.0`), which its index does not export. */
export const bullVersion = (fromBull('bullmq/dist/cjs/version.js') as { version: string }).version;

/** BullMQ's scripts, as its connections define them. */
export function bullScripts(): BullScript[] {
  const loaded = fromBull('bullmq/dist/cjs/scripts/index.js') as Record<string, Partial<BullScript>>;
  return Object.values(loaded).filter(
    (s): s is BullScript => typeof s.name === 'string' && typeof s.content === 'string' && typeof s.keys === 'number',
  );
}

/** One script with the conditional marker, or an error that says what no longer matches. */
export function withConditionalMarker(script: BullScript, taker: Taker): BullScript {
  const keys = TAKERS[taker];
  const where = `BullMQ ${bullVersion}'s ${script.name}`;
  if (script.name !== taker) throw new Error(`${where} is not ${taker}`);
  for (const [role, n] of Object.entries({ wait: keys.wait, delayed: keys.delayed })) {
    if (!new RegExp(`^\\s*KEYS\\[${n}\\] ${role} key\\s*$`, 'm').test(script.content)) {
      throw new Error(`${where} no longer takes its ${role} key as KEYS[${n}]: the marker fix (bull-marker.ts) needs a look`);
    }
  }
  const parts = script.content.split(UNCONDITIONAL_MARKER);
  if (parts.length !== 2) {
    throw new Error(`${where} has ${parts.length - 1} unconditional markers, not one: the marker fix (bull-marker.ts) needs a look`);
  }
  const replies = parts.join(conditionalMarker(keys)).split(TAKEN_REPLY);
  if (replies.length !== 2) {
    throw new Error(`${where} has ${replies.length - 1} replies with a taken job, not one: the marker fix (bull-marker.ts) needs a look`);
  }
  return { ...script, content: replies.join(takenReply) };
}

let patched: BullScript[] | undefined;

/** The three scripts that take a job, with the conditional marker (made once; throws when BullMQ's text changed). */
export function markerScripts(): BullScript[] {
  if (patched) return patched;
  const byName = new Map(bullScripts().map((s) => [s.name, s]));
  patched = (Object.keys(TAKERS) as Taker[]).map((taker) => {
    const script = byName.get(taker);
    if (!script) throw new Error(`BullMQ ${bullVersion} has no script ${taker}: the marker fix (bull-marker.ts) needs a look`);
    const marked = withConditionalMarker(script, taker);
    return TAKERS[taker].firstKnown ? withDelayedFirst(marked) : marked;
  });
  return patched;
}
