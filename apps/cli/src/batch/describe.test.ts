import type { Batch } from 'openai/resources/batches';
import { expect, test } from 'vitest';
import { describeBatch, duration, secondsLeft } from './describe.js';

const NOW = 1_790_000_000;
const batch = (fields: Partial<Batch> & { progress?: { charged: number; estimated_completion_at: number | null } }) =>
  ({
    id: 'batch_1',
    object: 'batch',
    endpoint: '/v1/images/generations',
    input_file_id: 'file-in',
    completion_window: '24h',
    created_at: NOW - 120,
    status: 'in_progress',
    in_progress_at: NOW - 100,
    expires_at: NOW + 86_280,
    request_counts: { total: 500, completed: 3, failed: 0 },
    progress: { charged: 105_000, estimated_completion_at: NOW + 40 },
    ...fields,
  }) as Batch;

test('for people: where it stands, money in units as the console shows it, times in UTC', () => {
  expect(describeBatch(batch({}), NOW).split('\n')).toEqual([
    'batch batch_1',
    '  status:   in_progress since 2026-09-21T14:11:40Z',
    '  lines:    3 done, 0 failed of 500',
    '  charged:  0.105',
    '  endpoint: /v1/images/generations',
    '  created:  2026-09-21T14:11:20Z',
    '  ends:     in about 40s (estimate)',
    '  expires:  2026-09-22T14:11:20Z',
  ]);
});

test('an ended batch: its files, no estimate, no expiry', () => {
  const ended = batch({
    status: 'cancelled',
    cancelled_at: NOW,
    request_counts: { total: 500, completed: 202, failed: 298 },
    output_file_id: 'file-out',
    error_file_id: 'file-err',
    progress: { charged: 7_070_000, estimated_completion_at: null },
  });
  const text = describeBatch(ended, NOW);
  expect(text).toContain('status:      cancelled since 2026-09-21T14:13:20Z');
  expect(text).toContain('lines:       202 done, 298 failed of 500');
  expect(text).toContain('charged:     7.07');
  expect(text).toContain('output file: file-out');
  expect(text).toContain('error file:  file-err');
  expect(text).not.toMatch(/ends:|expires:|NULL|INF/);
});

test("the progress line's time left: none once ended or while cancelling, whatever the estimate says", () => {
  expect(secondsLeft(batch({}), NOW)).toBe(40);
  expect(secondsLeft(batch({}), NOW + 60)).toBe(0); // late: not negative
  expect(secondsLeft(batch({ status: 'cancelling' }), NOW)).toBeUndefined();
  expect(secondsLeft(batch({ status: 'completed' }), NOW)).toBeUndefined();
  expect(secondsLeft(batch({ progress: { charged: 0, estimated_completion_at: null } }), NOW)).toBeUndefined();
  expect([45, 600, 11_100].map(duration)).toEqual(['45s', '10m', '3h 05m']);
});
