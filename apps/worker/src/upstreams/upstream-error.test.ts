import { describe, expect, test } from 'vitest';
import { errorClass, kindOfStatus, parseRetryAfter, UpstreamError } from './upstream-error.js';

describe('what an upstream status means for the job', () => {
  test.each([
    [500, 'transient'],
    [502, 'transient'],
    [503, 'transient'],
    [504, 'transient'],
    [408, 'transient'],
    [429, 'rate-limited'],
    [400, 'refused'],
    [422, 'refused'],
    [401, 'misconfigured'],
    [403, 'misconfigured'],
    [404, 'misconfigured'],
  ] as const)('%i -> %s', (status, kind) => {
    expect(kindOfStatus(status)).toBe(kind);
  });
});

describe('Retry-After', () => {
  test('seconds, fractions included', () => {
    expect(parseRetryAfter('7')).toBe(7_000);
    expect(parseRetryAfter('0.5')).toBe(500);
  });
  test('an HTTP date', () => {
    const now = Date.parse('2026-11-21T10:00:00Z');
    expect(parseRetryAfter('Sat, 21 Nov 2026 10:00:30 GMT', now)).toBe(30_000);
  });
  test('absent or garbage', () => {
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
  });
});

describe('the class an operator reads on relay_upstream_errors_total', () => {
  test.each([
    [new UpstreamError('rate-limited', 'x', { status: 429 }), 'rate_limited'],
    [new UpstreamError('quota-exhausted', 'x', { status: 429, code: 'SetLimitExceeded' }), 'quota_exhausted'],
    [new UpstreamError('misconfigured', 'x', { status: 401 }), 'auth'],
    [new UpstreamError('misconfigured', 'x', { status: 404 }), 'misconfigured'],
    [new UpstreamError('refused', 'x', { status: 400, moderation: true }), 'content_refused'],
    [new UpstreamError('refused', 'x', { status: 400, moderation: false }), 'bad_request'],
    [new UpstreamError('transient', 'x'), 'transient'],
    [new UpstreamError('unusable', 'x'), 'unusable'],
  ])('%#: %s', (error, name) => {
    expect(errorClass(error)).toBe(name);
  });
});
