/** Test material and measures: a sine as Gemini-shaped PCM, and its pitch back from decoded audio. */

export function sinePcm(hz: number, seconds: number, sampleRate = 24_000, amplitude = 12_000): Buffer {
  const samples = Math.round(seconds * sampleRate);
  const pcm = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) pcm.writeInt16LE(Math.round(Math.sin((2 * Math.PI * hz * i) / sampleRate) * amplitude), i * 2);
  return pcm;
}

/**
 * The frequency of a (near) pure tone by counting zero crossings in the middle 80% of the clip,
 * away from the encoder's priming and the tempo filter's edges.
 */
export function dominantHz(pcm: Buffer, sampleRate: number): number {
  const samples = pcm.length / 2;
  const from = Math.floor(samples * 0.1);
  const to = Math.floor(samples * 0.9);
  let crossings = 0;
  for (let i = from + 1; i < to; i++) {
    const before = pcm.readInt16LE((i - 1) * 2);
    const now = pcm.readInt16LE(i * 2);
    if ((before < 0 && now >= 0) || (before >= 0 && now < 0)) crossings++;
  }
  return crossings / 2 / ((to - from) / sampleRate);
}
