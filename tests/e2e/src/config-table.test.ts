import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { repoRoot } from '@relay/testkit';
import { expectedSections, rowsOf, TOOLS_SECTION } from './docs/config-tables.js';
import { parseMarkdown } from './docs/markdown.js';

/**
 * docs/configuration.md against the env schemas the apps parse: each section lists exactly the
 * variables its schema reads, each with the schema's default. A variable added to a schema and
 * not to the page, or one the page names that the code no longer reads, fails here.
 */
const file = 'docs/configuration.md';
const configuration = parseMarkdown(file, readFileSync(join(repoRoot, file), 'utf8'));

/** What a default cell says: its first code span, or nothing when it starts with "unset". */
const documentedDefault = (cell: { text: string; code: string[] }) => (/^unset\b/.test(cell.text) ? undefined : cell.code[0]);

describe('docs/configuration.md holds every variable the code reads, with its default', () => {
  for (const [section, expected] of expectedSections()) {
    test(section, () => {
      const rows = rowsOf(configuration, section);
      const names = rows.map((row) => row.name);
      expect(
        names.filter((name, i) => names.indexOf(name) !== i),
        'listed twice',
      ).toEqual([]);
      expect(
        [...expected.keys()].filter((name) => !names.includes(name)),
        'read by the code, missing from the table',
      ).toEqual([]);
      expect(
        names.filter((name) => !expected.has(name)),
        'in the table, read by no schema of this section',
      ).toEqual([]);
      const wrong = rows
        .filter((row) => documentedDefault(row.second) !== expected.get(row.name))
        .map(
          (row) => `${row.name}: the table says ${documentedDefault(row.second) ?? 'unset'}, the code ${expected.get(row.name) ?? 'unset'}`,
        );
      expect(wrong, 'defaults').toEqual([]);
    });
  }

  test(`${TOOLS_SECTION}: each variable is read by the files its row names`, () => {
    const rows = rowsOf(configuration, TOOLS_SECTION);
    expect(rows.length).toBeGreaterThan(0);
    const wrong = rows.flatMap((row) => {
      if (!row.name) return ['a row whose first cell is not one variable'];
      if (!row.second.code.length) return [`${row.name}: names no file`];
      return row.second.code
        .filter((path) => !existsSync(join(repoRoot, path)) || !readFileSync(join(repoRoot, path), 'utf8').includes(row.name))
        .map((path) => `${row.name}: not read by ${path}`);
    });
    expect(wrong).toEqual([]);
  });
});
