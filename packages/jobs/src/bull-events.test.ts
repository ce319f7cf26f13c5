import { expect, test } from 'vitest';
import { withoutEventWrites } from './bull-events.js';
import { bullScripts } from './bull-marker.js';
import { relayScripts } from './bull-scripts.js';

const writes = (lua: string) => lua.match(/rcall\("(XADD|XTRIM)", [^,]+/g) ?? [];

test('a write to an event stream goes whole, over every line it takes, and what follows it stays', () => {
  const lua = [
    'local rcall = redis.call',
    '  rcall("XADD", eventsKey, "MAXLEN", "~", maxEvents, "*", "event", "waiting",',
    '    "jobId", jobId, "prev", string.format("(%s)", prev))',
    '  if done then rcall("XTRIM", KEYS[4], "MAXLEN", "~", 0) end',
    '  rcall("XTRIM", KEYS[4], "MAXLEN", "~", 0) rcall("SET", KEYS[1], "kept")',
    '  rcall("XADD", inboxKey, "*", "kept", "1")',
  ].join('\n');
  const { content, dropped } = withoutEventWrites(lua);
  expect(dropped).toBe(2); // the XTRIM inside the `if` is not at a statement's start: left
  expect(content).toBe(
    [
      'local rcall = redis.call',
      '  do end',
      '  if done then rcall("XTRIM", KEYS[4], "MAXLEN", "~", 0) end',
      '  do end rcall("SET", KEYS[1], "kept")',
      '  rcall("XADD", inboxKey, "*", "kept", "1")',
    ].join('\n'),
  );
});

test('a call that never closes is refused, not cut short', () => {
  expect(() => withoutEventWrites('  rcall("XADD", eventsKey, "*", "event", ("open"')).toThrow(/does not close/);
});

/** Against the installed BullMQ: an upgrade that writes events some other way fails here. */
test("the relay's scripts write to no event stream; BullMQ's own do, in the scripts a request runs", () => {
  const own = new Map(bullScripts().map((s) => [s.name, s.content]));
  for (const name of ['addStandardJob', 'moveToActive', 'moveToFinished', 'updateProgress']) {
    expect(writes(own.get(name)!).length, name).toBeGreaterThan(0);
  }
  for (const script of relayScripts()) {
    expect(
      writes(script.content).filter((w) => !w.endsWith('inboxKey')),
      script.name,
    ).toEqual([]);
  }
});

test("the relay's scripts do not read the events' length, which only the event writes used; BullMQ's own do", () => {
  const reads = (lua: string) => lua.match(/"opts\.maxLenEvents"/g) ?? [];
  const own = new Map(bullScripts().map((s) => [s.name, s.content]));
  for (const name of ['addStandardJob', 'moveToFinished']) expect(reads(own.get(name)!).length, name).toBeGreaterThan(0);
  for (const script of relayScripts()) expect(reads(script.content), script.name).toEqual([]);
});

test("the relay's moveToFinished no longer looks whether the queue is drained, which only the `drained` event used; BullMQ's own does", () => {
  const drainedCheck = /rcall\("LLEN", KEYS\[2\]\)/;
  const own = bullScripts().find((s) => s.name === 'moveToFinished')!.content;
  expect(own).toMatch(drainedCheck);
  expect(own).toContain('"drained"');
  expect(relayScripts().find((s) => s.name === 'moveToFinished')!.content).not.toMatch(drainedCheck);
});
