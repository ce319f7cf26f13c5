import { expect, test } from 'vitest';
import { assertPlainJob, FLOW_SCRIPTS, withoutFlows } from './bull-flows.js';
import { bullScripts, bullVersion } from './bull-marker.js';
import { relayScripts } from './bull-scripts.js';

const own = new Map(bullScripts().map((s) => [s.name, s]));
const relay = new Map(relayScripts().map((s) => [s.name, s]));
const count = (text: string, what: RegExp) => text.match(what)?.length ?? 0;

/** Against the installed BullMQ: an upgrade that words these otherwise fails here. */
test("a job's end reads no children, parent or deduplication id in the relay's moveToFinished; BullMQ's own does", () => {
  const reads = /rcall\("(SCARD|ZCARD)", jobIdKey \.\. ":(dependencies|unsuccessful)"\)|"parentKey", "parent", "deid"/g;
  expect(count(own.get('moveToFinished')!.content, reads)).toBe(3);
  expect(count(relay.get('moveToFinished')!.content, reads)).toBe(0);
});

test('an add numbers a job from the counter only when it has no id of its own, in each add the relay runs', () => {
  for (const name of ['addStandardJob', 'addDelayedJob', 'addPrioritizedJob']) {
    expect(own.get(name)!.content, name).toMatch(/^local jobCounter = rcall\("INCR", [^)]+\)$/m);
    expect(relay.get(name)!.content, name).toMatch(/^local jobCounter = args\[2\] == "" and rcall\("INCR", [^)]+\) or 0/m);
  }
});

test("an add does not read its queue's pause or global concurrency in the relay's addStandardJob; BullMQ's own does", () => {
  const read = /isQueuePausedOrMaxed\(metaKey, activeKey\)/g;
  expect(count(own.get('addStandardJob')!.content, read)).toBe(1);
  expect(count(relay.get('addStandardJob')!.content, read)).toBe(0);
  expect(relay.get('addStandardJob')!.content).toMatch(/^local isPausedOrMaxed = false/m);
});

test('a script whose text no longer matches is refused, not run half changed; the others pass unchanged', () => {
  expect(FLOW_SCRIPTS).toEqual(['moveToFinished', 'addStandardJob', 'addDelayedJob', 'addPrioritizedJob']);
  const finish = own.get('moveToFinished')!;
  const reworded = { ...finish, content: finish.content.replace('"parentKey", "parent", "deid"', '"parentKey", "parent", "deid", "x"') };
  expect(() => withoutFlows(reworded, bullVersion)).toThrow(/moveToFinished no longer reads/);
  const add = own.get('addStandardJob')!;
  expect(() => withoutFlows({ ...add, content: add.content.replace('if args[2] == "" then', 'if not args[2] then') }, bullVersion)).toThrow(
    /addStandardJob no longer numbers/,
  );
  expect(() =>
    withoutFlows(
      { ...add, content: add.content.replace('isQueuePausedOrMaxed(metaKey, activeKey)', 'isQueuePausedOrMaxed(metaKey, KEYS[9])') },
      bullVersion,
    ),
  ).toThrow(/addStandardJob no longer reads its queue's pause/);
  const other = own.get('moveToActive')!;
  expect(withoutFlows(other, bullVersion)).toBe(other);
});

test('a relay job is never added as a child, deduplicated or prioritized', () => {
  expect(() => assertPlainJob({ jobId: 'x', attempts: 3 })).not.toThrow();
  expect(() => assertPlainJob(undefined)).not.toThrow();
  expect(() => assertPlainJob({ jobId: 'x', parent: { id: 'p', queue: 'q' } })).toThrow(/never added with parent/);
  expect(() => assertPlainJob({ jobId: 'x', priority: 3 })).toThrow(/never added with priority/);
  expect(() => assertPlainJob({ deduplication: { id: 'd' } })).toThrow(/never added with deduplication/);
});
