import type { QueueName } from '@relay/core';
import type { CallObserver } from '../metrics.js';
import type { UpstreamTarget } from './post-json.js';

/**
 * Every capability's own kind of adapter: what its processor calls, whatever vendor is behind the
 * channel. Each capability adds its entry where its adapter's interface is declared (TypeScript's
 * declaration merging: upstreams/images.ts, upstreams/speech.ts), so none is written here.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface Adapters {}

/** Every capability's adapter: one whose module declares none stops the build here, named. */
type Covered = Pick<Adapters, QueueName>;
export type Adapter<Q extends QueueName> = Covered[Q];

/** What a channel of a vendor makes to call its upstream: the adapter of the capability the vendor serves. */
export type AdapterFactory<Q extends QueueName> = (target: UpstreamTarget, observe: CallObserver) => Adapter<Q>;

/** A channel's adapter, with the capability it serves. */
export type ChannelAdapter<Q extends QueueName = QueueName> = { [K in Q]: { capability: K; adapter: Adapter<K> } }[Q];
