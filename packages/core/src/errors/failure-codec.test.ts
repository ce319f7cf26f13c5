import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { AppError, errorStatus, type ErrorCode } from './app-error.js';
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

  test('a foreign reason (a crash the worker did not encode) becomes an internal error', () => {
    expect(decodeFailure('TypeError: x is not a function').code).toBe('internal');
    expect(decodeFailure(undefined).status).toBe(500);
    expect(decodeFailure('relay-error:{broken').code).toBe('internal');
  });

  test("BullMQ's own reasons for jobs whose workers died are retryable 503s, not 500s", () => {
    for (const reason of ['job stalled more than allowable limit', 'job started more than allowable limit']) {
      const error = decodeFailure(reason);
      expect(error).toMatchObject({ code: 'unavailable', status: 503, retryable: true });
    }
  });

  test('long upstream messages are clipped before they are stored with the job', () => {
    const decoded = decodeFailure(encodeFailure(new AppError('upstream_failed', 'x'.repeat(100_000), { upstreamCode: 'y'.repeat(5_000) })));
    expect(decoded.message.length).toBeLessThan(1_100);
    expect(decoded.upstreamCode!.length).toBeLessThan(1_100);
  });

  test('a code naming a prototype property is not a code', () => {
    expect(decodeFailure('relay-error:{"code":"constructor","message":"x"}').code).toBe('internal');
  });

  const codes = Object.keys(errorStatus) as ErrorCode[];
  const text = fc.string({ maxLength: 1_000 });
  const appError = fc
    .record(
      {
        code: fc.constantFrom(...codes),
        message: text,
        status: fc.integer({ min: 400, max: 599 }),
        param: text,
        upstreamCode: text,
        retryable: fc.boolean(),
        retryAfterMs: fc.nat(),
      },
      { requiredKeys: ['code', 'message'] },
    )
    .map(({ code, message, ...options }) => new AppError(code, message, options));

  test('property: every AppError whose texts fit comes back the same', () => {
    fc.assert(
      fc.property(appError, (original) => {
        const decoded = decodeFailure(encodeFailure(original));
        expect(decoded).toBeInstanceOf(AppError);
        const fields = (e: AppError) => ({
          code: e.code,
          message: e.message,
          status: e.status,
          param: e.param,
          upstreamCode: e.upstreamCode,
          retryable: e.retryable,
          retryAfterMs: e.retryAfterMs,
        });
        expect(fields(decoded)).toEqual(fields(original));
      }),
    );
  });

  test('property: any reason at all decodes to an AppError, never a throw', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string().map((s) => `relay-error:${s}`),
          fc.json().map((j) => `relay-error:${j}`),
        ),
        (reason) => {
          expect(decodeFailure(reason)).toBeInstanceOf(AppError);
        },
      ),
    );
  });
});
