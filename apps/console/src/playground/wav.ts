/**
 * Gemini answers raw 16-bit little-endian mono PCM (mimeType audio/L16;codec=pcm;rate=N); a
 * browser plays it once it has a 44-byte RIFF header in front.
 */
export function pcmToWavBlob(base64: string, mimeType: string): Blob {
  const rate = Number(/rate=(\d+)/.exec(mimeType)?.[1] ?? 24_000);
  const pcm = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  const header = new DataView(new ArrayBuffer(44));
  const ascii = (offset: number, text: string) => [...text].forEach((c, i) => header.setUint8(offset + i, c.charCodeAt(0)));
  ascii(0, 'RIFF');
  header.setUint32(4, 36 + pcm.length, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  header.setUint32(16, 16, true);
  header.setUint16(20, 1, true); // PCM
  header.setUint16(22, 1, true); // mono
  header.setUint32(24, rate, true);
  header.setUint32(28, rate * 2, true);
  header.setUint16(32, 2, true);
  header.setUint16(34, 16, true);
  ascii(36, 'data');
  header.setUint32(40, pcm.length, true);
  return new Blob([header.buffer, pcm], { type: 'audio/wav' });
}
