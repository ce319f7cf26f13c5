/**
 * Gemini returns raw 16-bit little-endian mono PCM; the relay stores it as a playable WAV
 * (a 44-byte RIFF header in front) and strips that header again to answer in Gemini's shape.
 */
export const WAV_HEADER_BYTES = 44;

export function pcmToWav(pcm: Buffer, sampleRate: number, channels = 1, bitsPerSample = 16): Buffer {
  const header = Buffer.alloc(WAV_HEADER_BYTES);
  const blockAlign = (channels * bitsPerSample) / 8;
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + pcm.length, 4);
  header.write('WAVE', 8, 'latin1');
  header.write('fmt ', 12, 'latin1');
  header.writeUInt32LE(16, 16); // PCM fmt chunk size
  header.writeUInt16LE(1, 20); // audio format: PCM
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * blockAlign, 28);
  header.writeUInt16LE(blockAlign, 32);
  header.writeUInt16LE(bitsPerSample, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([header, pcm]);
}

export interface WavInfo {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  pcm: Buffer;
}

/** Reads a canonical PCM WAV; returns undefined for anything else. */
export function readWav(wav: Buffer): WavInfo | undefined {
  if (wav.length < WAV_HEADER_BYTES || wav.toString('latin1', 0, 4) !== 'RIFF' || wav.toString('latin1', 8, 12) !== 'WAVE') {
    return undefined;
  }
  if (wav.toString('latin1', 36, 40) !== 'data' || wav.readUInt16LE(20) !== 1) return undefined;
  const length = wav.readUInt32LE(40);
  return {
    channels: wav.readUInt16LE(22),
    sampleRate: wav.readUInt32LE(24),
    bitsPerSample: wav.readUInt16LE(34),
    pcm: wav.subarray(WAV_HEADER_BYTES, WAV_HEADER_BYTES + length),
  };
}

/** The rate in `audio/L16;codec=pcm;rate=24000`; Gemini's TTS rate when absent. */
export function sampleRateOf(mimeType: string): number {
  const rate = /rate=(\d+)/.exec(mimeType)?.[1];
  return rate ? Number(rate) : 24_000;
}
