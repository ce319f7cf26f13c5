import type { QueueName, Vendor, VendorCapability } from '@relay/core';
import type { CallObserver } from '../metrics.js';
import { arkImageAdapter } from './ark/adapter.js';
import { createGeminiSpeech } from './gemini/speech.js';
import type { SpeechSynthesis } from './speech.js';
import type { ImageAdapter } from './images.js';
import type { UpstreamTarget } from './post-json.js';

/** Every capability's own kind of adapter: what its processor calls (a capability missing here does not compile). */
type Covering<T extends Record<QueueName, unknown>> = T;
export type Adapters = Covering<{ images: ImageAdapter; speech: SpeechSynthesis }>;

/** A channel's adapter, with the capability it serves. */
export type ChannelAdapter<Q extends QueueName = QueueName> = { [K in Q]: { capability: K; adapter: Adapters[K] } }[Q];

/**
 * Each vendor protocol's adapter, serving the capability @relay/core's VENDORS gives it: a new
 * vendor is a folder and a line here (the compiler asks for it).
 */
export const ADAPTERS: { [V in Vendor]: (target: UpstreamTarget, observe: CallObserver) => ChannelAdapter<VendorCapability<V>> } = {
  ark: (target, observe) => ({ capability: 'images', adapter: arkImageAdapter(target, observe) }),
  gemini: (target, observe) => ({ capability: 'speech', adapter: createGeminiSpeech(target, observe) }),
};
