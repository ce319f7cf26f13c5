import { parseArgs } from 'node:util';
import { ChaosFailure, runChaos } from './run.js';

/**
 * npm run chaos -- --seed N [--minutes M] [--count K]: the seed's schedule of faults against the
 * relay's real processes, then the invariants. --count runs seeds N, N+1, ... N+K-1, each whatever
 * the others did. Exit 0 when every seed held, 1 otherwise (each failure names its seed and step).
 */
const USAGE = 'usage: npm run chaos -- --seed N [--minutes M] [--count K]';
const { values } = parseArgs({
  options: { seed: { type: 'string' }, minutes: { type: 'string', default: '1' }, count: { type: 'string', default: '1' } },
});
const seed = Number(values.seed);
const minutes = Number(values.minutes);
const count = Number(values.count);
if (values.seed === undefined || !Number.isInteger(seed) || seed < 0 || !(minutes > 0) || !Number.isInteger(count) || count < 1) {
  console.error(USAGE);
  process.exit(2);
}

const failed: number[] = [];
for (let n = seed; n < seed + count; n++) {
  try {
    const result = await runChaos(n, minutes);
    console.log(`chaos ok ${JSON.stringify(result)}`);
  } catch (error) {
    console.error(error instanceof ChaosFailure ? `chaos FAILED ${error.message}` : error);
    console.error(`replay: npm run chaos -- --seed ${n} --minutes ${minutes}`);
    failed.push(n);
  }
}
console.log(
  `chaos: ${count - failed.length} of ${count} seed(s) from ${seed} held (${minutes} min each)${failed.length ? `; failed: ${failed.join(', ')}` : ''}`,
);
// the stack's clients may keep sockets a moment; the verdict is in
process.exit(failed.length ? 1 : 0);
