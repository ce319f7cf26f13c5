import { expect, test } from 'vitest';
import { mulberry32 } from './random.js';
import { drawSchedule, formatSchedule, STEPS_PER_MINUTE, type Action } from './schedule.js';

const SEEDS = Array.from({ length: 200 }, (_, i) => i + 1);

test('a seed draws the same schedule every time, and its printout is the same', () => {
  for (const seed of [1, 42, 2 ** 31 + 5]) {
    expect(drawSchedule(seed, 2)).toEqual(drawSchedule(seed, 2));
    expect(formatSchedule(drawSchedule(seed, 2))).toBe(formatSchedule(drawSchedule(seed, 2)));
  }
});

test('the generator is seeded: two seeds give two sequences, and different schedules', () => {
  const first = mulberry32(1);
  const second = mulberry32(2);
  expect(Array.from({ length: 5 }, first)).not.toEqual(Array.from({ length: 5 }, second));
  const printed = new Set(SEEDS.map((seed) => formatSchedule(drawSchedule(seed)).replace(/^seed=\d+/, '')));
  expect(printed.size).toBe(SEEDS.length);
});

test('--minutes sets the number of steps', () => {
  expect(drawSchedule(7, 1).steps).toHaveLength(STEPS_PER_MINUTE);
  expect(drawSchedule(7, 10).steps).toHaveLength(10 * STEPS_PER_MINUTE);
});

test('a failover only with Sentinel, exactly once; then Redis is neither stopped nor paused by another step', () => {
  const schedules = SEEDS.map((seed) => drawSchedule(seed, 3));
  expect(schedules.some((s) => s.sentinel) && schedules.some((s) => !s.sentinel)).toBe(true);
  for (const { sentinel, steps } of schedules) {
    const actions = steps.map((s) => s.action);
    expect(actions.filter((a) => a.do === 'failover')).toHaveLength(sentinel ? 1 : 0);
    if (sentinel) expect(actions.filter((a) => a.do === 'redis-outage' || (a.do === 'pause' && a.target === 'redis'))).toEqual([]);
  }
});

test('over a few hundred seeds every kind of step and every upstream fault is drawn', () => {
  const actions: Action[] = SEEDS.flatMap((seed) => drawSchedule(seed, 3).steps.map((s) => s.action));
  expect(new Set(actions.map((a) => a.do))).toEqual(
    new Set(['mix', 'upstream', 'kill', 'restart', 'pause', 'store-outage', 'redis-outage', 'failover', 'depart', 'cancel', 'batch']),
  );
  const faults = new Set(
    actions.flatMap((a) => (a.do === 'upstream' ? [a.fault.type === 'error' ? String(a.fault.status) : a.fault.type] : [])),
  );
  expect(faults).toEqual(new Set(['500', '503', '429', 'hang', 'drop', 'quota']));
});
