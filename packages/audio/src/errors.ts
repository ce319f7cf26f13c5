/** What was wrong with the audio or the options handed to an encode. */
export type AudioInputProblem = 'speed_out_of_range' | 'unknown_format' | 'bad_sample_rate' | 'empty' | 'odd_length' | 'too_long';

/**
 * Thrown before any encoding starts. `speed_out_of_range` and `unknown_format` are the caller's
 * 400 (the request asked for them); the others mean the upstream's audio was unusable.
 */
export class AudioInputError extends Error {
  override readonly name = 'AudioInputError';

  constructor(
    readonly problem: AudioInputProblem,
    message: string,
  ) {
    super(message);
  }
}
