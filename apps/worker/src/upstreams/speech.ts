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

export interface SpeechSynthesis {
  /** The whole clip; with `hear`, streamed from the vendor and heard piece by piece as it is made. */
  synthesize(vendorModel: string, body: Omit<SpeechRequest, 'model'>, hear?: HearSpeech): Promise<SynthesizedSpeech>;
}
