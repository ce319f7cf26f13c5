import { describe, expect, it } from 'vitest';
import { encodeSpeech, type SpeechFormat } from './index.js';
import { tempoFilters } from './speed.js';
import { decode, secondsOf } from './testing/ffprobe.js';
import { dominantHz, sinePcm } from './testing/signals.js';

const clip = sinePcm(440, 3);

describe('speed changes tempo, not pitch', () => {
  it.each([
    [2, 'wav'],
    [0.5, 'wav'],
    [4, 'wav'],
    [0.25, 'wav'],
    [2, 'mp3'],
    [0.5, 'opus'],
    [2, 'aac'],
    [0.5, 'flac'],
  ] as [number, SpeechFormat][])('speed %s (%s): the duration divides by the speed, the tone stays at 440 Hz', async (speed, format) => {
    const result = await encodeSpeech(clip, { format, speed });
    const played = await decode(result.bytes);
    const seconds = 3 / speed;
    // a lossy codec's priming and padding, and atempo's last window: a few tens of ms
    expect(Math.abs(secondsOf(played) - seconds)).toBeLessThan(0.1);
    expect(Math.abs(result.durationMs - seconds * 1000)).toBeLessThan(50);
    expect(Math.abs(dominantHz(played, 24_000) - 440)).toBeLessThan(440 * 0.02);
  });

  it('a resampling speed-up would move the tone: the measure tells the difference', () => {
    // every second sample: twice as fast and an octave up, what atempo must not do
    const resampled = Buffer.alloc(clip.length / 2);
    for (let i = 0; i < resampled.length / 2; i++) resampled.writeInt16LE(clip.readInt16LE(i * 4), i * 2);
    expect(dominantHz(resampled, 24_000)).toBeGreaterThan(870);
  });
});

describe('tempoFilters', () => {
  it('one atempo within [0.5, 2], two equal steps outside, none at 1', () => {
    expect(tempoFilters(1)).toEqual([]);
    expect(tempoFilters(1.5)).toEqual(['atempo=1.5']);
    expect(tempoFilters(0.5)).toEqual(['atempo=0.5']);
    expect(tempoFilters(4)).toEqual(['atempo=2', 'atempo=2']);
    expect(tempoFilters(0.25)).toEqual(['atempo=0.5', 'atempo=0.5']);
    expect(tempoFilters(3)).toEqual([`atempo=${Math.sqrt(3)}`, `atempo=${Math.sqrt(3)}`]);
  });
});
