import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The vendors' own recorded answers, kept verbatim with their sources (apps/simulator/fixtures/vendor/README.md). */
const root = fileURLToPath(new URL('../../../simulator/fixtures/vendor/', import.meta.url));

export const fixtureText = (path: string) => readFileSync(`${root}${path}`, 'utf8');
export const fixtureJson = (path: string): unknown => JSON.parse(fixtureText(path));
