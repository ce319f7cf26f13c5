/**
 * BullMQ's event streams (issue 35). Every step of a job writes an event to its queue's stream
 * (`added`, `waiting`, `active`, `progress`, `completed`, `drained`...: five XADDs and an XTRIM
 * for one request), for QueueEvents to read. The relay reads none of them: a waiter hears from
 * its own inbox (@relay/life's notices), and the streams are capped at 0 (QUEUE_STREAMS). No
 * BullMQ option turns the writes off, so the relay's connections run BullMQ's scripts with each
 * write to an event stream replaced by an empty statement (`do end`).
 *
 * A write is found as a statement `rcall("XADD", <key>, ...)` or `rcall("XTRIM", <key>, ...)`
 * whose key is not a stream of BullMQ's own inbox scripts (`inboxKey`); the whole call, over as
 * many lines as it takes, goes. `withoutEventWrites` throws when a call does not end where it
 * should (bull-events.test.ts loads every script so made into a real Redis).
 */

/** Where a write to a stream starts: at the start of a statement, the command and its key. */
const WRITE = /^([ \t]*)rcall\("(XADD|XTRIM)", ([^,]+),/gm;
/** The streams that are not BullMQ's events (its inbox scripts' own). */
const NOT_EVENTS = new Set(['inboxKey']);

/** The index just past the parenthesis that closes the one opened at `open`, strings skipped. */
function closing(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === '"' || c === "'") {
      const end = text.indexOf(c, i + 1);
      if (end < 0) break;
      i = end;
    } else if (c === '(') depth += 1;
    else if (c === ')' && --depth === 0) return i + 1;
  }
  throw new Error(`an rcall at ${open} does not close`);
}

/**
 * BullMQ's read of the events' length (one HGET of the queue's meta per script run, and an HSET
 * when unset), whose value only its event writes use: with those gone the function answers its
 * default without asking Redis. Matched by its text; another text is left as it is (it then costs
 * the read, nothing else: bull-events.test.ts says when it no longer matches).
 */
const MAX_EVENTS_READ =
  /local function getOrSetMaxEvents\(metaKey\)\s*local maxEvents = rcall\("HGET", metaKey, "opts\.maxLenEvents"\)\s*if not maxEvents then\s*maxEvents = 10000\s*rcall\("HSET", metaKey, "opts\.maxLenEvents", maxEvents\)\s*end\s*return maxEvents\s*end/;
const MAX_EVENTS_DEFAULT = 'local function getOrSetMaxEvents(metaKey)\n  return 10000\nend';

/**
 * moveToFinished's check that the queue is drained (the wait and active lists' lengths and the
 * prioritized set's size, three commands each time a worker's last job ends), whose only statement
 * is the `drained` event's write: once that write is gone, the check goes whole. Matched by its
 * text after the writes are gone; another text is left as it is (bull-events.test.ts says when).
 */
const DRAINED_CHECK =
  /local waitLen = rcall\("LLEN", KEYS\[1\]\)\s*if waitLen == 0 then\s*local activeLen = rcall\("LLEN", KEYS\[2\]\)\s*if activeLen == 0 then\s*local prioritizedLen = rcall\("ZCARD", KEYS\[3\]\)\s*if prioritizedLen == 0 then\s*do end\s*end\s*end\s*end/;

/** The script's text with every write to an event stream gone (and what only they needed), and how many writes went. */
export function withoutEventWrites(script: string): { content: string; dropped: number } {
  const { content, dropped } = withoutWrites(script.replace(MAX_EVENTS_READ, MAX_EVENTS_DEFAULT));
  return { content: content.replace(DRAINED_CHECK, 'do end'), dropped };
}

function withoutWrites(content: string): { content: string; dropped: number } {
  let out = '';
  let from = 0;
  let dropped = 0;
  for (const match of content.matchAll(WRITE)) {
    const key = match[3]!.trim();
    if (NOT_EVENTS.has(key)) continue;
    const start = match.index + match[1]!.length;
    const end = closing(content, content.indexOf('(', start));
    out += `${content.slice(from, start)}do end`;
    from = end;
    dropped += 1;
  }
  return { content: out + content.slice(from), dropped };
}
