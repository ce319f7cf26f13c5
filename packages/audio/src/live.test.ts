import { describe, expect, it } from 'vitest';
import { AudioInputError, encodeSpeech, encodeSpeechLive, type SpeechFormat } from './index.js';
import { decode, probe, secondsOf } from './testing/ffprobe.js';
import { sinePcm } from './testing/signals.js';

/** Pieces handed over one at a time, when the test says: what the encoder gave before the next is provably early. */
function feed() {
  const waiting: Array<(piece: IteratorResult<Buffer>) => void> = [];
  const ready: Array<IteratorResult<Buffer>> = [];
  const give = (result: IteratorResult<Buffer>) => (waiting.length ? waiting.shift()!(result) : ready.push(result));
  return {
    pieces: {
      [Symbol.asyncIterator]: () => ({
        next: () => (ready.length ? Promise.resolve(ready.shift()!) : new Promise<IteratorResult<Buffer>>((r) => waiting.push(r))),
      }),
    } as AsyncIterable<Buffer>,
    push: (piece: Buffer) => give({ done: false, value: piece }),
    end: () => give({ done: true, value: undefined }),
  };
}

const SECOND = 48_000;
const clip = sinePcm(330, 4);
const STREAMED: SpeechFormat[] = ['mp3', 'opus', 'aac', 'wav', 'pcm'];

describe('encodeSpeechLive: audio encoded as it is made', () => {
  it.each(STREAMED)('%s: the first second gives bytes before the second is made, and the whole decodes to the clip', async (format) => {
    const { pieces, push, end } = feed();
    const out = encodeSpeechLive(pieces, { format });
    push(clip.subarray(0, SECOND));
    const first = await out.next();
    expect(first.done).toBe(false);
    expect(first.value!.length).toBeGreaterThan(0);
    const chunks = [first.value!];
    // the rest in odd-sized pieces, one cut mid-sample
    push(clip.subarray(SECOND, SECOND + 20_001));
    push(clip.subarray(SECOND + 20_001));
    end();
    for await (const chunk of out) chunks.push(chunk);
    const decoded = await decode(Buffer.concat(chunks), format === 'pcm');
    // within an encoder frame of the clip's 4 s (AAC and MP3 prime, Opus pre-skips)
    expect(Math.abs(secondsOf(decoded) - 4)).toBeLessThan(0.1);
  });

  it('pcm at speed 1 is the input itself, cut at whole samples', async () => {
    const { pieces, push, end } = feed();
    const out = encodeSpeechLive(pieces, { format: 'pcm' });
    push(clip.subarray(0, 1001));
    push(clip.subarray(1001));
    end();
    const chunks: Buffer[] = [];
    for await (const chunk of out) chunks.push(chunk);
    expect(chunks[0]!.length).toBe(1000);
    expect(Buffer.concat(chunks).equals(clip)).toBe(true);
  });

  it('wav carries a streaming header; the file encode of the same clip is the same audio', async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of encodeSpeechLive([clip.subarray(0, SECOND), clip.subarray(SECOND)], { format: 'wav' })) chunks.push(chunk);
    const live = Buffer.concat(chunks);
    const whole = (await encodeSpeech(clip, { format: 'wav' })).bytes;
    expect(live.subarray(0, 4).toString()).toBe('RIFF');
    expect(live.subarray(44).equals(whole.subarray(44))).toBe(true);
    expect((await probe(live)).codecName).toBe('pcm_s16le');
  });

  it('options are refused at once; audio that is not whole samples at its end', async () => {
    expect(() => encodeSpeechLive([clip], { format: 'mp3', speed: 9 })).toThrow(AudioInputError);
    const odd = encodeSpeechLive([clip.subarray(0, 1001)], { format: 'mp3' });
    await expect(async () => {
      for await (const _ of odd);
    }).rejects.toThrow(/whole 16-bit samples/);
  });
});
