// node-av's constants are plain values: importing them does not load the native FFmpeg
import {
  FF_ENCODER_AAC,
  FF_ENCODER_FLAC,
  FF_ENCODER_LIBMP3LAME,
  FF_ENCODER_LIBOPUS,
  FF_ENCODER_PCM_S16LE,
  type FFEncoderCodec,
} from 'node-av/constants';
import { CONTENT_TYPE, type SpeechFormat } from './format-names.js';

export { contentTypeOf, speechFormatSchema, type SpeechFormat } from './format-names.js';

export interface FormatSpec {
  /** The Content-Type an answer in this format carries (format-names.ts). */
  contentType: string;
  /** FFmpeg's encoder. */
  encoder: FFEncoderCodec;
  /** FFmpeg's muxer: the container the packets go into. */
  muxer: string;
  /** The sample format the encoder takes (FFmpeg's name), converted to by `aformat`. */
  sampleFormat: 's16' | 's16p' | 'fltp';
  /** Bits per second for the lossy codecs: chosen for 24 kHz mono speech, not music. */
  bitRate?: number;
  /** A rate the format always has whatever the input's: OpenAI defines pcm as 24 kHz. */
  sampleRate?: number;
}

/**
 * One line per format. Opus goes into Ogg and AAC into ADTS, as OpenAI answers them: both can be
 * written front to back, so a stream needs no seek back (M4A would need its index at the end or
 * fragments). wav is a RIFF file and pcm the bare samples, both 16-bit little-endian.
 */
export const formatSpecs: Readonly<Record<SpeechFormat, FormatSpec>> = {
  mp3: { contentType: CONTENT_TYPE.mp3, encoder: FF_ENCODER_LIBMP3LAME, muxer: 'mp3', sampleFormat: 's16p', bitRate: 64_000 },
  opus: { contentType: CONTENT_TYPE.opus, encoder: FF_ENCODER_LIBOPUS, muxer: 'ogg', sampleFormat: 's16', bitRate: 32_000 },
  aac: { contentType: CONTENT_TYPE.aac, encoder: FF_ENCODER_AAC, muxer: 'adts', sampleFormat: 'fltp', bitRate: 64_000 },
  flac: { contentType: CONTENT_TYPE.flac, encoder: FF_ENCODER_FLAC, muxer: 'flac', sampleFormat: 's16' },
  wav: { contentType: CONTENT_TYPE.wav, encoder: FF_ENCODER_PCM_S16LE, muxer: 'wav', sampleFormat: 's16' },
  pcm: { contentType: CONTENT_TYPE.pcm, encoder: FF_ENCODER_PCM_S16LE, muxer: 's16le', sampleFormat: 's16', sampleRate: 24_000 },
};
