import type { ChannelRecord } from '@relay/channels';
import type { CallObserver } from '../metrics.js';
import { arkImageAdapter } from './ark/adapter.js';
import { createGeminiSpeech } from './gemini/speech.js';
import type { SpeechSynthesis } from './speech.js';
import type { ImageAdapter } from './images.js';
import type { UpstreamTarget } from './post-json.js';

/** What a channel of each vendor protocol serves, and its adapter: a new vendor is a folder and a line here. */
export type ChannelAdapter = { capability: 'images'; adapter: ImageAdapter } | { capability: 'speech'; adapter: SpeechSynthesis };

export const ADAPTERS = {
  ark: (target, observe) => ({ capability: 'images', adapter: arkImageAdapter(target, observe) }),
  gemini: (target, observe) => ({ capability: 'speech', adapter: createGeminiSpeech(target, observe) }),
} as const satisfies Record<ChannelRecord['upstream'], (target: UpstreamTarget, observe: CallObserver) => ChannelAdapter>;

/** The queue each vendor protocol's channels serve. */
export const QUEUE_OF = { ark: 'images', gemini: 'speech' } as const satisfies Record<
  ChannelRecord['upstream'],
  ChannelAdapter['capability']
>;
