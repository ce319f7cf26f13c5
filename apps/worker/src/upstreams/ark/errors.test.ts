import { describe, expect, test } from 'vitest';
import { kindOfArkCode, toUpstreamError } from './errors.js';

describe('what an Ark error code means inside a stream (no HTTP status to go by)', () => {
  test.each([
    ['OutputImageSensitiveContentDetected', 'refused'],
    ['InputTextRiskDetection', 'refused'],
    ['InvalidParameter.Size', 'refused'],
    ['MissingParameter', 'refused'],
    ['BadRequest', 'refused'],
    ['ModelAccountIpmRateLimitExceeded', 'rate-limited'],
    ['QuotaExceeded', 'rate-limited'],
    ['ServerOverloaded', 'rate-limited'],
    ['InternalServiceError', 'transient'],
    ['SomethingNew', 'transient'],
  ] as const)('%s -> %s', (code, kind) => {
    expect(kindOfArkCode(code)).toBe(kind);
  });
});

test('an HTTP error keeps the vendor code, param and moderation flag', () => {
  const error = toUpstreamError(400, { error: { code: 'InvalidParameter', message: 'bad size', param: 'size' } }, null);
  expect(error).toMatchObject({ kind: 'refused', message: 'bad size', details: { status: 400, code: 'InvalidParameter', param: 'size' } });
  expect(error.details.moderation).toBe(false);
  expect(toUpstreamError(502, '<html>', null)).toMatchObject({ kind: 'transient', message: 'upstream answered HTTP 502' });
});
