/**
 * Every timing knob the soak and the chaos runs set, in one place: short locks, deadlines and
 * grace periods, so each recovery (a stalled job taken over, a cooled channel, an abandoned
 * reservation swept) happens within a run of a minute instead of the defaults' tens of minutes.
 */
export const KNOBS = {
  worker: {
    JOB_LOCK_MS: '1500',
    STALLED_CHECK_MS: '500',
    UPSTREAM_TIMEOUT_MS: '3000',
    STORE_RETRY_MS: '1000',
    RESERVATION_GRACE_MS: '5000',
    RESERVATION_SWEEP_MS: '500',
    CHANNEL_COOLDOWN_MS: '1000',
    UPSTREAM_RATE_LIMIT_MAX_DELAY_MS: '3000',
    SHUTDOWN_GRACE_MS: '5000',
    BATCH_FEED_AHEAD: '8',
  },
  api: { WAIT_TIMEOUT_MS: '15000', SHUTDOWN_GRACE_MS: '5000' },
  simulator: { SIM_LATENCY_MS: '40' },
} as const;
