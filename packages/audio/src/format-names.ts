import { z } from 'zod';

/**
 * What callers need to know of the formats without loading FFmpeg: the names OpenAI's
 * `POST /v1/audio/speech` takes (mp3 first, its default), their Content-Types and file
 * extensions, and the speed range. The api validates with these; only the worker encodes.
 */
export const speechFormatSchema = z.enum(['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm']);
export type SpeechFormat = z.infer<typeof speechFormatSchema>;

export const CONTENT_TYPE: Readonly<Record<SpeechFormat, string>> = {
  mp3: 'audio/mpeg',
  opus: 'audio/ogg; codecs=opus',
  aac: 'audio/aac',
  flac: 'audio/flac',
  wav: 'audio/wav',
  pcm: 'audio/pcm',
};

export const contentTypeOf = (format: SpeechFormat): string => CONTENT_TYPE[format];

export { MAX_SPEED, MIN_SPEED, speechSpeedSchema } from './speed.js';
