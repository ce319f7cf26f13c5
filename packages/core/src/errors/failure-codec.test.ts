import { describe, expect, test } from 'vitest';
import { AppError } from './app-error.js';
import { decodeFailure, encodeFailure } from './failure-codec.js';

describe('failedReason codec', () => {
  test('an AppError survives the round trip through a job failure', () => {
    const original = new AppError('content_rejected', 'moderated', { upstreamCode: 'InputTextSensitiveContentDetected', param: 'prompt' });
    const decoded = decodeFailure(encodeFailure(original));
    expect(decoded).toMatchObject({
      code: 'content_rejected',
      status: 400,
      message: 'moderated',
      upstreamCode: 'InputTextSensitiveContentDetected',
      param: 'prompt',
      retryable: false,
    });
  });

  test('a foreign reason (crash, stalled job) becomes an internal error', () => {
    expect(decodeFailure('job stalled more than allowable limit').code).toBe('internal');
    expect(decodeFailure(undefined).status).toBe(500);
    expect(decodeFailure('relay-error:{broken').code).toBe('internal');
  });
});
