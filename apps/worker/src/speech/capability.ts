import { preloadSpeechEncoder } from '@relay/audio';
import type { WorkerCapability } from '../capability.js';
import { createGeminiSpeech } from '../upstreams/gemini/speech.js';
import { createSpeechProcessor } from './process-speech-job.js';

/** Speech synthesis: Gemini's channels, and the processor that encodes, stores and charges each clip. */
export const speechWorker: WorkerCapability<'speech'> = {
  vendors: { gemini: createGeminiSpeech },
  processor: (deps) => createSpeechProcessor({ ...deps, storeRetry: deps.storeRetry('speech') }),
  // loading FFmpeg holds the event loop ~100 ms: at start, not in the middle of a job
  warm: (log) =>
    void preloadSpeechEncoder().catch((err: Error) =>
      log.warn({ err: err.message }, 'the speech encoder could not be loaded; OpenAI-dialect speech will fail'),
    ),
};
