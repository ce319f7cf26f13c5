import { decodeFailure } from '@relay/core';
import type { CallOutcome } from '@relay/channels';

/**
 * How loud the worker is about outcomes that are not errors of the relay's: the operator reads
 * warnings (npm start shows only those), so the expected ones must not bury the real ones.
 */

/**
 * A job attempt that failed: a cancelled one (its client left, its batch was cancelled: a
 * 500-line batch cancels hundreds at once) is what was asked for; anything else is a warning.
 */
export const attemptFailedLevel = (failedReason: string) => (decodeFailure(failedReason).code === 'cancelled' ? 'info' : 'warn');

/**
 * A call that failed on a channel: a 429 (limited) is the upstream pacing the relay, which cools
 * the channel and moves the job on; a failure (5xx, timeout) counts toward its breaker.
 */
export const channelCallLevel = (outcome: CallOutcome) => (outcome === 'limited' ? 'info' : 'warn');
