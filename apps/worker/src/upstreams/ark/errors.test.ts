import { describe, expect, test } from 'vitest';
import { fixtureJson } from '../vendor-fixtures.test-support.js';
import { kindOfArkCode, resetNamedIn, toUpstreamError } from './errors.js';

describe('what an Ark error code means, whatever status carried it', () => {
  test.each([
    ['OutputImageSensitiveContentDetected', 'refused'],
    ['InputTextRiskDetection', 'refused'],
    ['InvalidParameter.Size', 'refused'],
    ['MissingParameter', 'refused'],
    ['BadRequest', 'refused'],
    ['ModelAccountIpmRateLimitExceeded', 'rate-limited'],
    ['RateLimitExceeded.EndpointRPMExceeded', 'rate-limited'],
    ['ServerOverloaded', 'rate-limited'],
    ['SetLimitExceeded', 'quota-exhausted'],
    ['AccountQuotaExceeded', 'quota-exhausted'],
    ['QuotaExceeded', 'quota-exhausted'],
    ['AccountOverdueError', 'quota-exhausted'],
    ['AuthenticationError', 'misconfigured'],
    ['InvalidEndpointOrModel.NotFound', 'misconfigured'],
    ['InternalServiceError', 'transient'],
    ['SomethingNew', 'transient'],
  ] as const)('%s -> %s', (code, kind) => {
    expect(kindOfArkCode(code)).toBe(kind);
  });

  test('an unknown code falls back to its status', () => {
    expect(toUpstreamError(429, { error: { code: 'SomethingNew', message: 'x' } }, null).kind).toBe('rate-limited');
    expect(toUpstreamError(400, { error: { code: 'SomethingNew', message: 'x' } }, null).kind).toBe('refused');
    expect(toUpstreamError(503, { error: { code: 'SomethingNew', message: 'x' } }, null).kind).toBe('transient');
    // an overload with a 5xx is a 5xx; with a 429, a rest
    expect(toUpstreamError(503, { error: { code: 'ServerOverloaded', message: 'x' } }, null).kind).toBe('transient');
    expect(toUpstreamError(429, { error: { code: 'ServerOverloaded', message: 'x' } }, null).kind).toBe('rate-limited');
  });
});

describe('the recorded 429s: quota is not a rate limit', () => {
  test('the spend cap (SetLimitExceeded): exhausted, no reset known', () => {
    const error = toUpstreamError(429, fixtureJson('seedream/ark-429-SetLimitExceeded.json'), null);
    expect(error).toMatchObject({ kind: 'quota-exhausted', details: { status: 429, code: 'SetLimitExceeded' } });
    expect(error.details.untilMs).toBeUndefined();
  });

  test('the monthly quota (AccountQuotaExceeded): exhausted until the reset its message names', () => {
    const error = toUpstreamError(429, fixtureJson('seedream/ark-429-AccountQuotaExceeded.json'), null);
    expect(error).toMatchObject({ kind: 'quota-exhausted', details: { code: 'AccountQuotaExceeded' } });
    expect(new Date(error.details.untilMs!).toISOString()).toBe('2026-04-14T15:59:59.000Z');
  });

  test('resets named in other spellings, or none', () => {
    expect(resetNamedIn('It will reset at 2026-12-01 00:00:00 +0000 UTC.')).toBe(Date.parse('2026-12-01T00:00:00Z'));
    expect(resetNamedIn('reset on 2026-12-01T08:00:00-08:00')).toBe(Date.parse('2026-12-01T16:00:00Z'));
    expect(resetNamedIn('try later')).toBeUndefined();
  });
});

test('an HTTP error keeps the vendor code, param and moderation flag', () => {
  const error = toUpstreamError(400, { error: { code: 'InvalidParameter', message: 'bad size', param: 'size' } }, null);
  expect(error).toMatchObject({ kind: 'refused', message: 'bad size', details: { status: 400, code: 'InvalidParameter', param: 'size' } });
  expect(error.details.moderation).toBe(false);
  expect(toUpstreamError(502, '<html>', null)).toMatchObject({ kind: 'transient', message: 'upstream answered HTTP 502' });
  const moderated = toUpstreamError(400, fixtureJson('seedream/ark-400-OutputImageSensitiveContentDetected.json'), null);
  expect(moderated).toMatchObject({ kind: 'refused', details: { moderation: true, code: 'OutputImageSensitiveContentDetected' } });
});

test("the channel's key echoed in an error never leaves the adapter", () => {
  const key = 'ak-0123456789abcdef';
  const error = toUpstreamError(401, { error: { code: 'AuthenticationError', message: `the API key ${key} is invalid` } }, null, key);
  expect(error.message).toBe('the API key [redacted] is invalid');
});
