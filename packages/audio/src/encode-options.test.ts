import { describe, expect, it } from 'vitest';
import {
  AudioInputError,
  encodeSpeech,
  encodeSpeechStream,
  MAX_INPUT_SECONDS,
  type AudioInputProblem,
  type EncodeSpeechOptions,
} from './index.js';
import { sinePcm } from './testing/signals.js';

const clip = sinePcm(440, 0.5);

async function problemOf(pcm: Buffer, options: EncodeSpeechOptions): Promise<AudioInputProblem | undefined> {
  const caught = (await encodeSpeech(pcm, options).then(
    () => undefined,
    (error: unknown) => error,
  )) as AudioInputError | undefined;
  expect(caught).toBeInstanceOf(AudioInputError);
  return caught?.problem;
}

describe('input checks, before any encoding', () => {
  it.each([0.2, 4.5, 0, -1, Number.NaN, Number.POSITIVE_INFINITY])('speed %s is speed_out_of_range', async (speed) => {
    expect(await problemOf(clip, { speed })).toBe('speed_out_of_range');
  });

  it('the stream form throws at the call, before a response could start', () => {
    expect(() => encodeSpeechStream(clip, { speed: 5 })).toThrow(AudioInputError);
    expect(() => encodeSpeechStream(clip, { format: 'ogg' as never })).toThrow(/format/);
  });

  it('the bounds themselves are accepted', async () => {
    await expect(encodeSpeech(clip, { speed: 0.25, format: 'pcm' })).resolves.toMatchObject({ contentType: 'audio/pcm' });
    await expect(encodeSpeech(clip, { speed: 4, format: 'pcm' })).resolves.toMatchObject({ contentType: 'audio/pcm' });
  });

  it('an unknown format, a bad rate, no audio, half a sample, too long', async () => {
    expect(await problemOf(clip, { format: 'm4a' as never })).toBe('unknown_format');
    expect(await problemOf(clip, { sampleRate: 1000 })).toBe('bad_sample_rate');
    expect(await problemOf(Buffer.alloc(0), {})).toBe('empty');
    expect(await problemOf(Buffer.alloc(3), {})).toBe('odd_length');
    const tooLong = Buffer.alloc((MAX_INPUT_SECONDS * 24_000 + 2) * 2);
    expect(await problemOf(tooLong, {})).toBe('too_long');
  });

  it('defaults: mp3 at speed 1 from 24 kHz', async () => {
    const result = await encodeSpeech(clip);
    expect(result).toMatchObject({ contentType: 'audio/mpeg', durationMs: 500 });
  });
});
