import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { loadCatalog } from '@relay/core';
import { withConsoleSection } from './relay-config.js';

const section = { simulatorUrl: 'http://127.0.0.1:4010', demoKeyFile: '/data/demo-key.json' };

test("the operator's config file, inline or a path, reaches the api with npm start's console section", () => {
  const file = join(mkdtempSync(join(tmpdir(), 'relay-config-')), 'relay.json');
  writeFileSync(file, JSON.stringify({ tuning: { api: { jobAttempts: 2 } } }));
  for (const given of [undefined, '', file, '{"tuning":{"api":{"jobAttempts":2}}}']) {
    const loaded = loadCatalog({ RELAY_CONFIG: withConsoleSection(given, section) });
    expect(loaded.console).toEqual(section);
    expect(loaded.tuning.api.jobAttempts).toBe(given ? 2 : 4);
  }
});

test('a file the launcher cannot read goes on unchanged, for the api to refuse in its own words', () => {
  expect(withConsoleSection('/nowhere/relay.json', section)).toBe('/nowhere/relay.json');
  expect(withConsoleSection('{"broken"', section)).toBe('{"broken"');
  expect(() => loadCatalog({ RELAY_CONFIG: withConsoleSection('[1]', section) })).toThrow(/RELAY_CONFIG/);
});
