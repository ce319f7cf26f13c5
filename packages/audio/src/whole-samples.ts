import { MAX_INPUT_SECONDS } from './encode-options.js';
import { AudioInputError } from './errors.js';

/**
 * Pieces of 16-bit mono audio as they come, cut at whole samples (a piece may end mid-sample: its
 * odd byte waits for the next), refused beyond MAX_INPUT_SECONDS as a whole clip would be.
 */
export async function* wholeSamples(
  pieces: AsyncIterable<Buffer> | Iterable<Buffer>,
  sampleRate: number,
): AsyncGenerator<Buffer, void, undefined> {
  let carry = Buffer.alloc(0);
  let bytes = 0;
  for await (const piece of pieces) {
    bytes += piece.length;
    if (bytes / 2 / sampleRate > MAX_INPUT_SECONDS)
      throw new AudioInputError('too_long', `the audio runs over the ${MAX_INPUT_SECONDS} s an encode takes`);
    const joined = carry.length ? Buffer.concat([carry, piece]) : piece;
    const whole = joined.length - (joined.length % 2);
    carry = Buffer.from(joined.subarray(whole));
    if (whole > 0) yield joined.subarray(0, whole);
  }
  if (carry.length) throw new AudioInputError('odd_length', 'the audio is not whole 16-bit samples');
}
