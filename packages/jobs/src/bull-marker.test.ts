import { expect, test } from 'vitest';
import {
  bullScripts,
  DUE_READ,
  markerScripts,
  TAKEN_REPLY,
  UNCONDITIONAL_MARKER,
  withConditionalMarker,
  withDelayedFirst,
} from './bull-marker.js';

/** The marker fix against the installed BullMQ's own scripts: an upgrade that moves what it replaces fails here. */
test('the three scripts that take a job each lose their one unconditional marker, and keep the rest of their text', () => {
  const scripts = markerScripts();
  expect(scripts.map((s) => [s.name, s.keys])).toEqual([
    ['moveToActive', 11],
    ['moveToFinished', 14],
    ['moveToDelayed', 11],
  ]);
  const original = new Map(bullScripts().map((s) => [s.name, s.content]));
  for (const taken of scripts) {
    // (moveToActive's promotion, changed too, has a test of its own below)
    const script =
      taken.name === 'moveToActive'
        ? withConditionalMarker(
            bullScripts().find((s) => s.name === taken.name)!,
            'moveToActive',
          )
        : taken;
    expect(script.content).not.toContain(UNCONDITIONAL_MARKER);
    expect(script.content).not.toContain(TAKEN_REPLY);
    expect(script.content).toContain('rcall("ZREM", markerKey, "0")');
    expect(script.content).toContain('jobId, 0, relayNoneLeft}');
    // BullMQ's text before the marker line and after the reply, unchanged
    const [before] = original.get(script.name)!.split(UNCONDITIONAL_MARKER);
    const [, after] = original.get(script.name)!.split(TAKEN_REPLY);
    expect(script.content.startsWith(before!)).toBe(true);
    expect(script.content.endsWith(after!)).toBe(true);
  }
});

test('no other BullMQ script takes a job (prepareJobForProcessing) or leaves the marker the same way', () => {
  const others = bullScripts().filter(
    (s) =>
      !['moveToActive', 'moveToFinished', 'moveToDelayed'].includes(s.name) &&
      /prepareJobForProcessing|addBaseMarkerIfNeeded\(markerKey, false\)/.test(s.content),
  );
  expect(others.map((s) => s.name)).toEqual([]);
});

test('a script whose marker line or keys moved is refused, not run as it is', () => {
  const active = bullScripts().find((s) => s.name === 'moveToActive')!;
  const moved = { ...active, content: active.content.replace(UNCONDITIONAL_MARKER, '\n  addBaseMarkerIfNeeded(markerKey, isMaxed)\n') };
  expect(() => withConditionalMarker(moved, 'moveToActive')).toThrow(/0 unconditional markers/);
  const twice = {
    ...active,
    content: active.content.replace(UNCONDITIONAL_MARKER, `${UNCONDITIONAL_MARKER}  -- again${UNCONDITIONAL_MARKER}`),
  };
  expect(() => withConditionalMarker(twice, 'moveToActive')).toThrow(/2 unconditional markers/);
  const rekeyed = { ...active, content: active.content.replace('KEYS[7] delayed key', 'KEYS[7] paused key') };
  expect(() => withConditionalMarker(rekeyed, 'moveToActive')).toThrow(/delayed key as KEYS\[7\]/);
  expect(() => withConditionalMarker(active, 'moveToDelayed')).toThrow(/is not moveToDelayed/);
  const replied = { ...active, content: active.content.replace(TAKEN_REPLY, '\n  return {rcall("HGETALL", jobKey), jobId, 0, 0}\n') };
  expect(() => withConditionalMarker(replied, 'moveToActive')).toThrow(/0 replies with a taken job/);
});

test("moveToActive reads the delayed set's first job before its due range, and its marker reuses that read; the other takers read for themselves", () => {
  const [active, finished, delayed] = markerScripts();
  const rangeReads = (text: string) => text.match(/rcall\("ZRANGEBYSCORE", delayedKey/g)?.length ?? 0;
  expect(active!.content).not.toContain(DUE_READ);
  expect(rangeReads(active!.content)).toBe(1); // now only when the first job is due
  expect(active!.content).toMatch(/^local relayDelayedFirst /m);
  expect(active!.content).toContain('local nextDelayed = (relayDelayedFirst or rcall("ZRANGE", KEYS[7], 0, 0, "WITHSCORES"))[2]');
  for (const other of [finished!, delayed!]) expect(other.content).not.toContain('relayDelayedFirst');
  const own = bullScripts().find((s) => s.name === 'moveToActive')!;
  expect(() => withDelayedFirst({ ...own, content: own.content.replace(DUE_READ, '\n    local jobs = {}\n') })).toThrow(
    /no longer promotes/,
  );
});
