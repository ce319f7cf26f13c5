import { describe, expect, test } from 'vitest';
import { fixtureJson } from '../vendor-fixtures.test-support.js';
import { nextPacificMidnight, toUpstreamError } from './errors.js';

const quota429 = (quotaId: string, quotaValue = '250000', retryDelay = '26s') => ({
  error: {
    code: 429,
    message: 'You exceeded your current quota, please check your plan and billing details.',
    status: 'RESOURCE_EXHAUSTED',
    details: [
      { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ quotaId, quotaValue }] },
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay },
    ],
  },
});

describe("Gemini's 429s: a per-minute quota is a rest, a per-day one is not", () => {
  test('the recorded per-minute 429 rests as its RetryInfo says', () => {
    const error = toUpstreamError(429, fixtureJson('gemini/429-resource-exhausted-retryinfo.roo-code-3883.json'));
    expect(error).toMatchObject({ kind: 'rate-limited', details: { status: 429, code: 'RESOURCE_EXHAUSTED', retryAfterMs: 26_000 } });
  });

  test('a per-day quota is exhausted until Pacific midnight, whatever its short RetryInfo says', () => {
    const error = toUpstreamError(429, quota429('GenerateRequestsPerDayPerProjectPerModel-FreeTier'));
    expect(error.kind).toBe('quota-exhausted');
    expect(error.details.untilMs).toBeGreaterThan(Date.now());
    expect(error.details.untilMs! - Date.now()).toBeLessThanOrEqual(25 * 3_600_000);
  });

  test('a quota of 0 (the model is not on the project tier) is exhausted with no reset', () => {
    const error = toUpstreamError(429, quota429('GenerateRequestsPerMinutePerProjectPerModel-FreeTier', '0'));
    expect(error).toMatchObject({ kind: 'quota-exhausted' });
    expect(error.details.untilMs).toBeUndefined();
  });
});

describe('the next Pacific midnight', () => {
  test.each([
    ['2026-11-27T12:00:00Z', '2026-11-28T08:00:00.000Z'], // PST, UTC-8
    ['2026-07-01T06:59:00Z', '2026-07-01T07:00:00.000Z'], // PDT, UTC-7, a minute before
    ['2026-03-08T09:30:00Z', '2026-03-09T07:00:00.000Z'], // the day summer time starts
  ])('%s -> %s', (now, next) => {
    expect(new Date(nextPacificMidnight(Date.parse(now))).toISOString()).toBe(next);
  });
});

describe('other recorded errors', () => {
  test('"Model tried to generate text" is worth another try, not a refusal passed on', () => {
    const error = toUpstreamError(400, fixtureJson('gemini/tts-400-model-tried-to-generate-text.json'));
    expect(error).toMatchObject({ kind: 'transient', details: { status: 400, code: 'TEXT_INSTEAD_OF_AUDIO' } });
  });

  test("a bad key is the relay's, not the caller's", () => {
    const body = {
      error: { code: 400, message: 'API key not valid.', status: 'INVALID_ARGUMENT', details: [{ reason: 'API_KEY_INVALID' }] },
    };
    expect(toUpstreamError(400, body)).toMatchObject({ kind: 'misconfigured' });
  });

  test('a parameter the model refuses stays a refusal', () => {
    const body = {
      error: { code: 400, message: 'Thinking is not enabled for models/gemini-2.5-flash-preview-tts', status: 'INVALID_ARGUMENT' },
    };
    expect(toUpstreamError(400, body)).toMatchObject({ kind: 'refused' });
  });
});
