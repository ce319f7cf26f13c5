/** 16-bit little-endian mono PCM at 24 kHz, like Gemini TTS. */
export const SAMPLE_RATE = 24_000;
/** Gemini's audio stops at about 5 min 27 s whatever the text. */
export const MAX_SECONDS = 327;
/** About 25 audio tokens per second of speech. */
export const AUDIO_TOKENS_PER_SECOND = 25;

/** Speech-like duration: about 15 characters a second, at least half a second. */
export const secondsFor = (text: string) => Math.min(MAX_SECONDS, Math.max(0.5, text.length / 15));

/** A real, audible waveform: one tone per character, so the clip follows the text. */
export function synthesize(text: string): Buffer {
  const seconds = secondsFor(text);
  const samples = Math.round(seconds * SAMPLE_RATE);
  const pcm = Buffer.alloc(samples * 2);
  const perChar = samples / Math.max(1, text.length);
  for (let i = 0; i < samples; i++) {
    const char = text.charCodeAt(Math.min(text.length - 1, Math.floor(i / perChar))) || 97;
    const frequency = 140 + (char % 32) * 12;
    const envelope = Math.sin((Math.PI * (i % perChar)) / perChar);
    pcm.writeInt16LE(Math.round(9_000 * envelope * Math.sin((2 * Math.PI * frequency * i) / SAMPLE_RATE)), i * 2);
  }
  return pcm;
}

/**
 * A reading direction leading the text: a first clause asking to say, read or speak, ending in a
 * colon ("Say cheerfully: Have a wonderful day!", "Read aloud in a warm tone:\n…", Google's TTS
 * guide). The model follows it and speaks only what comes after.
 */
const DIRECTION = /^\s*(?:say|read|speak)\b[^:\n]{0,80}:\s*(?=\S)/i;

export const hasDirection = (text: string) => DIRECTION.test(text);

/** The words the model speaks: the text without its leading direction. */
export const spokenText = (text: string) => text.replace(DIRECTION, '');
