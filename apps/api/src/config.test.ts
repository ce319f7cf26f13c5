import { expect, test } from 'vitest';
import { ConfigError } from '@relay/core';
import { loadApiConfig } from './config.js';

test('an ADMIN_TOKEN shorter than 32 characters refuses to start the api, saying how to make one', () => {
  expect(() => loadApiConfig({ ADMIN_TOKEN: 'hunter2' })).toThrow(ConfigError);
  expect(() => loadApiConfig({ ADMIN_TOKEN: 'x'.repeat(31) })).toThrow(
    'ADMIN_TOKEN: must be at least 32 characters, and this one has 31: make one with openssl rand -hex 32',
  );
  expect(loadApiConfig({ ADMIN_TOKEN: 'x'.repeat(32) }).ADMIN_TOKEN).toBe('x'.repeat(32));
  // unset (or empty) is no admin API, not a short token
  expect(loadApiConfig({ ADMIN_TOKEN: '' }).ADMIN_TOKEN).toBeUndefined();
  expect(loadApiConfig({}).ADMIN_TOKEN).toBeUndefined();
});
