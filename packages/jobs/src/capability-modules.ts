import type { QueueName } from './doors/capabilities.js';
import type { CapabilityModule, Delivered } from './capability-module.js';
import { imagesModule } from './images/index.js';
import { speechModule } from './speech/index.js';

/**
 * Every capability's module, by queue: a capability @relay/core declares and this table lacks does
 * not compile. A new one is its folder (its jobs, doors and index.ts) and a line here.
 */
export const CAPABILITY_MODULES: { readonly [Q in QueueName]: CapabilityModule<Q> } = {
  images: imagesModule,
  speech: speechModule,
};

/** What a finished job of `queue` delivered (its result as Redis gave it back), for a batch's progress. */
export function deliveredBy<Q extends QueueName>(queue: Q, result: unknown): Delivered {
  const module: CapabilityModule<Q> = CAPABILITY_MODULES[queue];
  return module.delivered(module.result.parse(result));
}
