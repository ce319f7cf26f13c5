import type { SpeechRequest, UsageMetadata } from '@relay/jobs';

/**
 * What the speech queue asks of a vendor, and what any vendor's adapter gives back (gemini/ is
 * one). The request is the relay's speech job as it travels, in Gemini's native shape (the
 * public door every other speech door is translated into); the answer is 16-bit PCM and its usage.
 */
export interface SynthesizedSpeech {
  pcm: Buffer;
  mimeType: string;
  finishReason: string;
  usageMetadata: UsageMetadata;
  responseId: string;
}

/** Audio as the vendor speaks it: 16-bit PCM and its mime type (the rate), awaited before the next piece is read. */
export type HearSpeech = (pcm: Buffer, mimeType: string) => Promise<void>;

export interface SynthesisOptions {
  /** How to speak, apart from the words (OpenAI's `instructions`): the adapter puts it where the vendor model reads style. */
  style?: string;
  /** Streams the clip from the vendor, each piece heard as it is made. */
  hear?: HearSpeech;
}

export interface SpeechSynthesis {
  synthesize(vendorModel: string, body: Omit<SpeechRequest, 'model'>, options?: SynthesisOptions): Promise<SynthesizedSpeech>;
}

declare module './adapters.js' {
  /** The speech queue's channels are called through a SpeechSynthesis, whatever their vendor. */
  interface Adapters {
    speech: SpeechSynthesis;
  }
}
