import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { adminTokenTooShort } from '@relay/core';
import { adminTokenIn } from './data-dir.js';
import { loadEmbeddedConfig } from './config.js';

test('npm start makes an admin token the api takes, keeps it, and refuses a short one before starting anything', () => {
  const dir = mkdtempSync(join(tmpdir(), 'relay-data-'));
  const made = adminTokenIn(dir, undefined);
  expect(made.length).toBeGreaterThanOrEqual(32);
  expect(adminTokenTooShort(made)).toBeUndefined(); // what the api checks
  expect(adminTokenIn(dir, undefined)).toBe(made);
  expect(readFileSync(join(dir, 'admin-token'), 'utf8').trim()).toBe(made);

  // one given in the environment is checked with the launcher's own settings
  expect(() => loadEmbeddedConfig({ ADMIN_TOKEN: 'short' })).toThrow(/ADMIN_TOKEN: must be at least 32 characters.*openssl rand -hex 32/);
  // a kept one edited by hand
  writeFileSync(join(dir, 'admin-token'), 'hand-made\n');
  expect(() => adminTokenIn(dir, undefined)).toThrow(/admin-token must be at least 32 characters, and this one has 9.*delete the file/);
});
