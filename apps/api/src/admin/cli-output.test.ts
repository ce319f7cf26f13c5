import { expect, test } from 'vitest';
import { forPeople } from './cli-output.js';

test('a page of accounts is a table with money in units and the cursor to go on', () => {
  const text = forPeople({
    accounts: [
      {
        id: 'acct_1',
        name: 'acme',
        createdAt: 0,
        weight: 1,
        maxInFlight: null,
        balance: 50_000_000,
        reserved: 175_000,
        spent: 0,
        spentThisMonth: 50,
      },
    ],
    nextCursor: '25',
  });
  const [header, row] = text.split('\n').filter((l) => /acct_1|name/.test(l));
  expect(header).toMatch(/id\s+│ name\s+│ balance │ reserved │ spent this month │ weight │ max in flight/);
  expect(row).toMatch(/acct_1 │ acme │\s+50\.00 │\s+0\.175 │\s+0\.00005 │\s+1 │\s+- /);
  expect(text.trimEnd().endsWith('more: add --cursor 25')).toBe(true);
  expect(text).not.toContain('\u001b['); // no colours in pipes and files
});

test('one record is field/value rows, its keys a table below, times in UTC', () => {
  const text = forPeople({
    id: 'acct_1',
    name: 'acme',
    createdAt: Date.UTC(2026, 0, 2, 3, 4, 5),
    balance: 1,
    keys: [{ id: 'key_1', name: 'ci', rateLimitPerMinute: null, createdAt: 0, lastUsedAt: null, revokedAt: null, accountId: 'acct_1' }],
  });
  expect(text).toMatch(/created at\s+│ 2026-01-02T03:04:05Z/);
  expect(text).toMatch(/balance\s+│ 0\.000001/);
  expect(text).toMatch(/keys:\n.*\n│ id\s+│ name │ rate limit per minute │ created at\s+│/);
  expect(text).not.toContain('accountId');
});

test('an empty list says so', () => {
  expect(forPeople({ entries: [], nextCursor: null })).toBe('(none)');
});
