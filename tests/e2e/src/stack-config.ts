import type { TuningInput } from '@relay/core';
import type { StackOptions } from './stack-types.js';

/**
 * What every stack runs with: a 429's pause and a retry's delay short enough for a test to see
 * them end, and no per-key request limit unless a test sets one.
 */
const STACK_TUNING = { worker: { rateLimitDelayMs: 200 }, api: { jobBackoffMs: 50, rateLimitPerMinute: 0 } } satisfies TuningInput;

/** Two tunings as one, section by section: `more`'s settings over `base`'s. */
export function mergeTuning(base: TuningInput, more: TuningInput = {}): TuningInput {
  return {
    api: { ...base.api, ...more.api },
    worker: { ...base.worker, ...more.worker, breaker: { ...base.worker?.breaker, ...more.worker?.breaker } },
    webhooks: { ...base.webhooks, ...more.webhooks },
  };
}

/**
 * The stack's config file, inline (RELAY_CONFIG): its own catalog when it has one (the built-in
 * sections otherwise), the capabilities' limits, the stack's tuning under the test's, and what the
 * console is told (the stack's simulator, a demo key file).
 */
export function relayConfig(
  options: Pick<StackOptions, 'catalog' | 'queues' | 'tuning' | 'demoKeyFile'>,
  simulatorUrl: string,
  tuning?: TuningInput,
): string {
  const catalog = (options.catalog ?? {}) as Record<string, unknown>;
  return JSON.stringify({
    ...catalog,
    ...(options.queues ? { queues: options.queues } : {}),
    tuning: mergeTuning(mergeTuning(STACK_TUNING, options.tuning), tuning),
    console: { simulatorUrl, ...(options.demoKeyFile ? { demoKeyFile: options.demoKeyFile } : {}) },
  });
}
