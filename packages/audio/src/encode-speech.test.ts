import { describe, expect, it } from 'vitest';
import { contentTypeOf, encodeSpeech, encodeSpeechStream, type SpeechFormat } from './index.js';
import { decode, probe, secondsOf } from './testing/ffprobe.js';
import { sinePcm } from './testing/signals.js';

const clip = sinePcm(440, 3);

// What Debian's ffprobe must find in each format: Opus always decodes at 48 kHz (its input rate
// sits in the OpusHead), ADTS is the demuxer FFmpeg names `aac`.
const expected: Record<SpeechFormat, { formatName: string; codecName: string; sampleRate: number; contentType: string }> = {
  mp3: { formatName: 'mp3', codecName: 'mp3', sampleRate: 24_000, contentType: 'audio/mpeg' },
  opus: { formatName: 'ogg', codecName: 'opus', sampleRate: 48_000, contentType: 'audio/ogg; codecs=opus' },
  aac: { formatName: 'aac', codecName: 'aac', sampleRate: 24_000, contentType: 'audio/aac' },
  flac: { formatName: 'flac', codecName: 'flac', sampleRate: 24_000, contentType: 'audio/flac' },
  wav: { formatName: 'wav', codecName: 'pcm_s16le', sampleRate: 24_000, contentType: 'audio/wav' },
  pcm: { formatName: 's16le', codecName: 'pcm_s16le', sampleRate: 24_000, contentType: 'audio/pcm' },
};
const formats = Object.keys(expected) as SpeechFormat[];

// a lossy codec's priming and last-frame padding: well under 0.1 s at 24 kHz
const near = (actual: number, target: number) => expect(Math.abs(actual - target)).toBeLessThan(0.1);

describe('encodeSpeech', () => {
  it.each(formats)('%s: a file Debian ffprobe reads as that codec and container, mono, 3 s', async (format) => {
    const result = await encodeSpeech(clip, { format, sampleRate: 24_000 });
    const want = expected[format];
    expect(result.contentType).toBe(want.contentType);
    expect(contentTypeOf(format)).toBe(want.contentType);
    expect(result.durationMs).toBe(3000);

    const raw = format === 'pcm';
    const probed = await probe(result.bytes, raw);
    expect(probed).toMatchObject({ formatName: want.formatName, codecName: want.codecName, sampleRate: want.sampleRate, channels: 1 });
    // a whole file carries its length (FLAC's STREAMINFO, WAV's sizes) where the format has one
    if (!raw) near(probed.duration!, 3);
    near(secondsOf(await decode(result.bytes, raw)), 3);
  });

  it('wav is a plain 44-byte RIFF header before the samples, with the sizes filled in', async () => {
    const { bytes } = await encodeSpeech(clip, { format: 'wav' });
    expect(bytes.toString('latin1', 0, 4)).toBe('RIFF');
    expect(bytes.readUInt32LE(4)).toBe(bytes.length - 8);
    expect(bytes.toString('latin1', 36, 40)).toBe('data');
    expect(bytes.readUInt32LE(40)).toBe(clip.length);
    expect(bytes.readUInt16LE(22)).toBe(1); // channels
    expect(bytes.readUInt32LE(24)).toBe(24_000);
    expect(bytes.readUInt16LE(34)).toBe(16);
    expect(bytes.subarray(44).equals(clip)).toBe(true);
  });

  it('encodes run side by side without sharing state', async () => {
    const results = await Promise.all(formats.map((format, i) => encodeSpeech(clip, { format, speed: 1 + i * 0.25 })));
    for (const [i, result] of results.entries()) {
      const format = formats[i]!;
      const decoded = await decode(result.bytes, format === 'pcm');
      near(secondsOf(decoded), 3 / (1 + i * 0.25));
    }
  });

  it('pcm at speed 1 is the input unchanged', async () => {
    const { bytes } = await encodeSpeech(clip, { format: 'pcm' });
    expect(bytes.equals(clip)).toBe(true);
  });
});

describe('encodeSpeechStream', () => {
  it.each(formats)('%s: the chunks put together decode as the same 3 s', async (format) => {
    const chunks: Buffer[] = [];
    for await (const chunk of encodeSpeechStream(clip, { format })) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(0);
    const raw = format === 'pcm';
    const streamed = Buffer.concat(chunks);
    expect(await probe(streamed, raw)).toMatchObject({ codecName: expected[format].codecName, channels: 1 });
    near(secondsOf(await decode(streamed, raw)), 3);
  });

  it('yields the first chunk before the whole clip is encoded', async () => {
    const long = sinePcm(440, 30);
    const stream = encodeSpeechStream(long, { format: 'wav' });
    const first = await stream.next();
    expect(first.done).toBe(false);
    expect((first.value as Buffer).length).toBeLessThan(long.length / 10);
    await stream.return();
  });
});
