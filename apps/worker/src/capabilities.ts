import { VENDORS, type QueueName, type Vendor, type VendorCapability } from '@relay/core';
import type { CallObserver } from './metrics.js';
import type { WorkerCapability } from './capability.js';
import type { AdapterFactory, ChannelAdapter } from './upstreams/adapters.js';
import type { UpstreamTarget } from './upstreams/post-json.js';
import { imagesWorker } from './images/capability.js';
import { speechWorker } from './speech/capability.js';

/**
 * Every capability's part in the worker, by queue: a capability @relay/core declares and this
 * table lacks, or a vendor its entry lacks, does not compile. A new one is its folder (its
 * processor and capability.ts), its vendors' folders under upstreams/, and a line here.
 */
export const WORKER_CAPABILITIES: { readonly [Q in QueueName]: WorkerCapability<Q> } = {
  images: imagesWorker,
  speech: speechWorker,
};

/**
 * Each vendor's adapter, gathered from the capabilities' entries. Taken as the vendor table's type
 * here, the one place it is assembled: each entry was checked against its capability's adapter.
 */
const VENDOR_ADAPTERS = Object.assign({}, ...Object.values(WORKER_CAPABILITIES).map((c) => c.vendors)) as {
  readonly [V in Vendor]: AdapterFactory<VendorCapability<V>>;
};

/** The adapter a channel speaking `vendor` makes, with the capability it serves (the channel registry's). */
export function channelAdapter<V extends Vendor>(
  vendor: V,
  target: UpstreamTarget,
  observe: CallObserver,
): ChannelAdapter<VendorCapability<V>> {
  return { capability: VENDORS[vendor].capability, adapter: VENDOR_ADAPTERS[vendor](target, observe) };
}
