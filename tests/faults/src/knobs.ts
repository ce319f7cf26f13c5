import type { TuningInput } from '@relay/core';

/**
 * Every timing knob the soak and the chaos runs set, in one place: short locks, deadlines and
 * grace periods, so each recovery (a stalled job taken over, a cooled channel, an abandoned
 * reservation swept) happens within a run of a minute instead of the defaults' tens of minutes.
 * The relay's own knobs go in its config file (`tuning`); shutdown's grace and the api's wait are
 * variables.
 */
export const KNOBS = {
  tuning: {
    worker: {
      jobLockMs: 1_500,
      stalledCheckMs: 500,
      upstreamTimeoutMs: 3_000,
      storeRetryMs: 1_000,
      reservationGraceMs: 5_000,
      reservationSweepMs: 500,
      breaker: { cooldownMs: 1_000 },
      rateLimitMaxDelayMs: 3_000,
      batchFeedAhead: 8,
    },
  } satisfies TuningInput,
  worker: { SHUTDOWN_GRACE_MS: '5000' },
  api: { WAIT_TIMEOUT_MS: '15000', SHUTDOWN_GRACE_MS: '5000' },
  simulator: { SIM_LATENCY_MS: '40' },
} as const;

/** The failover tests' locks: a job whose worker lost its lock in the failover is taken over in seconds. */
export const FAILOVER_TUNING = { worker: { jobLockMs: 3_000, stalledCheckMs: 1_000 } } satisfies TuningInput;
