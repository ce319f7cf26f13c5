import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { QUEUE_NAMES } from '@relay/jobs';
import { repoRoot } from '@relay/testkit';
import {
  CATALOG_PARTS,
  expectedFileSections,
  expectedSections,
  FILE_SECTION,
  relayVariables,
  rowsOf,
  TOOLS_SECTION,
  type Expected,
  type Row,
} from './docs/config-tables.js';
import { parseMarkdown } from './docs/markdown.js';

/**
 * docs/configuration.md against the schemas the apps parse: each section lists exactly the
 * variables its schema reads, and each part of the config file (`queues`, `tuning.api`, ...)
 * exactly the keys its schema takes, each with the schema's default. A variable or key added to
 * a schema and not to the page, or one the page names that the code no longer reads, fails here.
 */
const file = 'docs/configuration.md';
const text = readFileSync(join(repoRoot, file), 'utf8');
const configuration = parseMarkdown(file, text);

/** The most variables the api and the worker may read together: issue 34's bound. */
const MOST_VARIABLES = 40;

/** What a default cell says: its first code span, or nothing when it starts with "unset". */
const documentedDefault = (cell: { text: string; code: string[] }) => (/^unset\b/.test(cell.text) ? undefined : cell.code[0]);

/** A table's rows against what the code reads: each name once, none missing, none extra, the code's defaults. */
function expectTable(rows: Row[], expected: Expected) {
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
    .map((row) => `${row.name}: the table says ${documentedDefault(row.second) ?? 'unset'}, the code ${expected.get(row.name) ?? 'unset'}`);
  expect(wrong, 'defaults').toEqual([]);
}

describe('docs/configuration.md holds every variable the code reads, with its default', () => {
  for (const [section, expected] of expectedSections()) {
    test(section, () => expectTable(rowsOf(configuration, section), expected));
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

describe('docs/configuration.md holds every key of the config file, with its default', () => {
  for (const [subsection, expected] of expectedFileSections()) {
    test(`${FILE_SECTION}: ${subsection}`, () => {
      const tables = configuration.tables.filter((table) => table.section === FILE_SECTION && table.subsection === subsection);
      expect(tables.length, `a table under the heading "${subsection}"`).toBeGreaterThan(0);
      expectTable(rowsOf(configuration, FILE_SECTION, subsection), expected);
    });
  }

  test(`${FILE_SECTION}: names every capability of queues and every part of the catalog`, () => {
    const named = (prefix: string) => configuration.code.some((code) => code.startsWith(prefix));
    expect(QUEUE_NAMES.filter((name) => !named(`queues.${name}`))).toEqual([]);
    expect(CATALOG_PARTS.filter((part) => !named(`${part}.`))).toEqual([]);
  });
});

describe('the relay reads few variables, none per capability', () => {
  const variables = relayVariables();

  test(`the api and the worker read at most ${MOST_VARIABLES} variables together`, () => {
    expect(variables.size).toBeLessThanOrEqual(MOST_VARIABLES);
  });

  test("none is per capability (its limits are the config file's `queues`)", () => {
    const prefixes = QUEUE_NAMES.map((name) => `${name.toUpperCase()}_`);
    expect([...variables].filter((name) => prefixes.some((prefix) => name.startsWith(prefix)))).toEqual([]);
  });

  test('the page states the count', () => {
    const stated = /The relay's processes read (\d+) variables/.exec(text.replace(/\s+/g, ' '))?.[1];
    expect(Number(stated)).toBe(variables.size);
  });
});
