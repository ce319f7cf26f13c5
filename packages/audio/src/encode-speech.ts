import { checkInput, checkOptions, type CheckedOptions, type EncodeSpeechOptions } from './encode-options.js';
import { loadNodeAv, runPipeline } from './ffmpeg-pipeline.js';
import { contentTypeOf, formatSpecs } from './formats.js';
import { memorySink, streamSink } from './output-sinks.js';
import { wholeSamples } from './whole-samples.js';

export interface EncodedSpeech {
  bytes: Buffer;
  contentType: string;
  /** The encoded audio's length: the input's divided by the speed. */
  durationMs: number;
}

// A stream's chunks: small enough that the first bytes leave early, large enough that an SSE
// delta is not one event per packet. A whole file is written in larger steps.
const STREAM_CHUNK_BYTES = 16 * 1024;
const FILE_CHUNK_BYTES = 64 * 1024;

/**
 * Loads FFmpeg now rather than in the first encode: opening the native library holds the event
 * loop for about 100-160 ms (measured), which a process should spend at start, not in a request.
 */
export async function preloadSpeechEncoder(): Promise<void> {
  await loadNodeAv();
}

/** pcm at speed 1 at its own rate is the input itself: FFmpeg would copy it unchanged. */
function isPassthrough(options: CheckedOptions): boolean {
  return options.format === 'pcm' && options.speed === 1 && options.sampleRate === formatSpecs.pcm.sampleRate;
}

const millisecondsOf = (samples: number, sampleRate: number) => Math.round((samples / sampleRate) * 1000);

/**
 * Mono signed 16-bit little-endian PCM (Gemini's TTS output) encoded whole in `format`, at
 * `speed` (tempo, not pitch). Rejects with AudioInputError, before any work, for options out of range
 * or unusable audio. The file is complete: headers a stream cannot fill in (FLAC's sample count,
 * WAV's sizes, MP3's Xing frame) are filled in here.
 */
export async function encodeSpeech(pcm: Buffer, options: EncodeSpeechOptions = {}): Promise<EncodedSpeech> {
  const checked = checkInput(pcm, options);
  const contentType = contentTypeOf(checked.format);
  if (isPassthrough(checked))
    return { bytes: Buffer.from(pcm), contentType, durationMs: millisecondsOf(pcm.length / 2, checked.sampleRate) };
  const sink = memorySink(pcm.length / 4);
  const run = runPipeline(pcm, checked, sink, FILE_CHUNK_BYTES);
  let step = await run.next();
  while (!step.done) step = await run.next();
  return { bytes: sink.contents(), contentType, durationMs: millisecondsOf(step.value.samples, step.value.sampleRate) };
}

/**
 * The same encode as chunks, yielded as the muxer writes them: for plain streaming of the bytes
 * and for SSE `speech.audio.delta` events. Options are checked now (an AudioInputError throws
 * from this call, before a response has started); the encode runs as the chunks are pulled.
 * A consumer that stops early must end the iteration (`break` in for-await, `return()`, or
 * `Readable.from(...)` being destroyed): that frees FFmpeg's state at once.
 */
export function encodeSpeechStream(pcm: Buffer, options: EncodeSpeechOptions = {}): AsyncGenerator<Buffer, void, undefined> {
  const checked = checkInput(pcm, options);
  return isPassthrough(checked) ? slices(pcm, STREAM_CHUNK_BYTES) : encodedChunks(pcm, checked);
}

async function* encodedChunks(pcm: Buffer, options: CheckedOptions): AsyncGenerator<Buffer, void, undefined> {
  for await (const chunks of runPipeline(pcm, options, streamSink(), STREAM_CHUNK_BYTES)) yield* chunks;
}

// async only to share the encoded stream's type
async function* slices(bytes: Buffer, size: number): AsyncGenerator<Buffer, void, undefined> {
  for (let start = 0; start < bytes.length; start += size) yield Buffer.from(bytes.subarray(start, start + size));
}

/**
 * Audio encoded while it is being made: each piece of PCM (as a vendor streams it) goes through
 * FFmpeg as it arrives, and what the muxer wrote for it is yielded at once, so the first bytes
 * leave long before the clip ends. The output is a streamed file: what a stream cannot go back
 * and fill in stays "unknown" (WAV's sizes, FLAC's sample count, MP3's Xing frame). Options are
 * checked now (AudioInputError, before any work); the pieces' audio as it is pulled.
 */
export function encodeSpeechLive(
  pieces: AsyncIterable<Buffer> | Iterable<Buffer>,
  options: EncodeSpeechOptions = {},
): AsyncGenerator<Buffer, void, undefined> {
  const checked = checkOptions(options);
  return isPassthrough(checked) ? wholeSamples(pieces, checked.sampleRate) : liveChunks(pieces, checked);
}

async function* liveChunks(
  pieces: AsyncIterable<Buffer> | Iterable<Buffer>,
  options: CheckedOptions,
): AsyncGenerator<Buffer, void, undefined> {
  for await (const chunks of runPipeline(pieces, options, streamSink(), STREAM_CHUNK_BYTES)) {
    if (chunks.length) yield chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  }
}
