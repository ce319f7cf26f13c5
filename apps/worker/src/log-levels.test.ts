import { AppError, encodeFailure } from '@relay/core';
import { expect, test } from 'vitest';
import { cancelledError as cancelled } from '@relay/life';
import { attemptFailedLevel, channelCallLevel } from './log-levels.js';

test('a cancelled attempt is info; a failure of the upstream, the store or the relay itself stays a warning', () => {
  expect(attemptFailedLevel(encodeFailure(cancelled()))).toBe('info');
  expect(attemptFailedLevel(encodeFailure(new AppError('upstream_rejected', 'the upstream refused the request')))).toBe('warn');
  expect(attemptFailedLevel(encodeFailure(new AppError('unavailable', 'no channel could take it')))).toBe('warn');
  expect(attemptFailedLevel('job stalled more than allowable limit')).toBe('warn');
  expect(attemptFailedLevel('TypeError: x is not a function')).toBe('warn');
});

test('a channel rate-limited (429) is info; a failing one, which counts toward its breaker, a warning', () => {
  expect(channelCallLevel('limited')).toBe('info');
  expect(channelCallLevel('fail')).toBe('warn');
});
