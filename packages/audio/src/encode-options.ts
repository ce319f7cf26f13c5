import { z } from 'zod';
import { AudioInputError, type AudioInputProblem } from './errors.js';
import { speechFormatSchema } from './formats.js';
import { speechSpeedSchema } from './speed.js';

/** Gemini cuts its speech near 327 s; a little more is allowed, never an unbounded buffer. */
export const MAX_INPUT_SECONDS = 330;

export const encodeSpeechOptionsSchema = z.object({
  /** The input's rate: Gemini's TTS answers 24 kHz (the `rate=` of its mimeType). */
  sampleRate: z.number().int().min(8_000).max(48_000).default(24_000),
  format: speechFormatSchema.default('mp3'),
  speed: speechSpeedSchema.default(1),
});
export type EncodeSpeechOptions = z.input<typeof encodeSpeechOptionsSchema>;
export type CheckedOptions = z.output<typeof encodeSpeechOptionsSchema>;

const problemOf: Readonly<Record<keyof CheckedOptions, AudioInputProblem>> = {
  sampleRate: 'bad_sample_rate',
  format: 'unknown_format',
  speed: 'speed_out_of_range',
};

/** The options with their defaults, or an AudioInputError naming the first thing wrong. */
export function checkOptions(options: EncodeSpeechOptions): CheckedOptions {
  const parsed = encodeSpeechOptionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = String(issue.path[0]);
    const problem = Object.hasOwn(problemOf, field) ? problemOf[field as keyof CheckedOptions] : 'unknown_format';
    throw new AudioInputError(problem, `${field}: ${issue.message}`);
  }
  return parsed.data;
}

/** The options checked, and the audio: some, whole samples, within MAX_INPUT_SECONDS. */
export function checkInput(pcm: Buffer, options: EncodeSpeechOptions): CheckedOptions {
  const checked = checkOptions(options);
  const { sampleRate } = checked;
  if (pcm.length === 0) throw new AudioInputError('empty', 'no audio to encode');
  if (pcm.length % 2 !== 0) throw new AudioInputError('odd_length', 'the audio is not whole 16-bit samples');
  const seconds = pcm.length / 2 / sampleRate;
  if (seconds > MAX_INPUT_SECONDS) {
    throw new AudioInputError('too_long', `${seconds.toFixed(1)} s of audio is over the ${MAX_INPUT_SECONDS} s an encode takes`);
  }
  return checked;
}
