import { AppError } from '@relay/core';
import { AudioInputError, encodeSpeech } from '@relay/audio';
import { CONTENT_TYPES, pcmToWav, type SpeechJob } from '@relay/jobs';

export interface AudioFile {
  bytes: Buffer;
  extension: string;
  contentType: string;
  durationMs: number;
}

/**
 * What a speech job stores: the upstream's PCM as a WAV (Gemini's door reads it back), or, for
 * OpenAI's door, encoded in the format and tempo it asked (FFmpeg through @relay/audio, on the
 * worker: the api only streams the file back).
 */
export async function audioFile(pcm: Buffer, sampleRate: number, output: SpeechJob['output']): Promise<AudioFile> {
  if (!output) {
    return {
      bytes: pcmToWav(pcm, sampleRate),
      extension: 'wav',
      contentType: CONTENT_TYPES.wav!,
      durationMs: Math.round((pcm.length / 2 / sampleRate) * 1000),
    };
  }
  try {
    const encoded = await encodeSpeech(pcm, { sampleRate, format: output.format, speed: output.speed });
    return { bytes: encoded.bytes, extension: output.format, contentType: encoded.contentType, durationMs: encoded.durationMs };
  } catch (error) {
    // the request was checked at the door: what the encoder refuses here is the upstream's audio
    if (error instanceof AudioInputError) {
      throw new AppError('upstream_failed', `the upstream's audio could not be encoded: ${error.message}`, { retryable: false });
    }
    throw error;
  }
}
