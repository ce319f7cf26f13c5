import { expect, test } from 'vitest';
import { runChaos } from './chaos/run.js';
import { drawSchedule } from './chaos/schedule.js';

/**
 * A few short seeded chaos runs (tests/faults/src/chaos, `npm run chaos`): each draws its
 * schedule of faults from its seed, runs it against the relay's real processes, and checks the
 * invariants; a failure names the seed and the step, and `npm run chaos -- --seed N --minutes M`
 * replays the schedule. The seeds are chosen so that between them they take every kind of step.
 */
const SEEDS = [6, 18, 15, 29];
const MINUTES = 0.5;

test('between them the seeds take every kind of step', () => {
  const actions = new Set(SEEDS.flatMap((seed) => drawSchedule(seed, MINUTES).steps.map((s) => s.action.do)));
  expect([...actions].sort()).toEqual(
    ['batch', 'cancel', 'depart', 'failover', 'kill', 'mix', 'pause', 'redis-outage', 'restart', 'store-outage', 'upstream'].sort(),
  );
});

for (const seed of SEEDS) {
  test(`seed ${seed}: the invariants hold`, async () => {
    const schedule: string[] = [];
    const result = await runChaos(seed, MINUTES, (line) => schedule.push(line)).catch((error: Error) => {
      error.message += `\n${schedule.join('\n')}\nreplay: npm run chaos -- --seed ${seed} --minutes ${MINUTES}`;
      throw error;
    });
    expect(result.steps).toBe(drawSchedule(seed, MINUTES).steps.length);
    expect(result.accepted + result.delivered).toBeGreaterThan(0);
  }, 300_000);
}
