import type * as NodeAvModule from 'node-av';
import type { Encoder, Frame, Muxer } from 'node-av';
import type { CheckedOptions } from './encode-options.js';
import { formatSpecs, type FormatSpec } from './formats.js';
import type { OutputSink } from './output-sinks.js';
import { tempoFilters } from './speed.js';

type NodeAv = typeof NodeAvModule;
let nodeAv: Promise<NodeAv> | undefined;

/**
 * node-av maps a ~170 MB FFmpeg library: the first encode loads it (or preloadSpeechEncoder),
 * not every process that imports this package.
 * FFmpeg's own log (per-encode statistics, a stream's "unable to rewrite header") would go to
 * stderr line by line; errors still do, and every failure also rejects the encode.
 */
export function loadNodeAv(): Promise<NodeAv> {
  return (nodeAv ??= import('node-av').then((av) => {
    av.Log.setLevel(av.AV_LOG_ERROR);
    return av;
  }));
}

/**
 * Samples handed to FFmpeg at a time, about 680 ms at 24 kHz: each node-av call costs the main
 * thread a hop, and fewer, larger frames measured a quarter less CPU than 4096 (bench:audio).
 */
const FRAME_SAMPLES = 16384;

/** What came out: the sample count after the tempo change, at the output's rate. */
export interface PipelineResult {
  samples: number;
  sampleRate: number;
}

/**
 * The format's own rate if it has one, else the input's when the encoder takes it, else the
 * nearest it does (MP3, AAC and Opus have fixed sets). Gemini's 24 kHz suits them all.
 */
function outputRate(av: NodeAv, format: FormatSpec, inputRate: number): number {
  if (format.sampleRate) return format.sampleRate;
  const rates = av.Codec.findEncoderByName(format.encoder)?.supportedSamplerates ?? [];
  if (rates.length === 0 || rates.includes(inputRate)) return inputRate;
  return rates.reduce((best, rate) => (Math.abs(rate - inputRate) < Math.abs(best - inputRate) ? rate : best));
}

const bytesPerSample: Readonly<Record<FormatSpec['sampleFormat'], number>> = { s16: 2, s16p: 2, fltp: 4 };

/**
 * Silence that completes the encoder's last frame. node-av (6.1) re-chunks audio into the codec's
 * frame size and drops a final partial frame at flush, which would cut up to one frame off the
 * end; MP3 and AAC pad their last frame with silence anyway, Opus and FLAC now do too (at most
 * 20 ms for Opus, 96 ms for FLAC at 24 kHz).
 */
function tailPadding(av: NodeAv, encoder: Encoder, spec: FormatSpec, rate: number, samples: number): Frame | undefined {
  const frameSize = encoder.getCodecContext()?.frameSize ?? 0;
  const missing = frameSize > 0 ? (frameSize - (samples % frameSize)) % frameSize : 0;
  if (missing === 0) return undefined;
  const format = { s16: av.AV_SAMPLE_FMT_S16, s16p: av.AV_SAMPLE_FMT_S16P, fltp: av.AV_SAMPLE_FMT_FLTP }[spec.sampleFormat];
  return av.Frame.fromAudioBuffer(Buffer.alloc(missing * bytesPerSample[spec.sampleFormat]), {
    nbSamples: missing,
    format,
    sampleRate: rate,
    channelLayout: av.AV_CHANNEL_LAYOUT_MONO,
    timeBase: { num: 1, den: rate },
    pts: BigInt(samples),
  });
}

/**
 * Mono 16-bit PCM through FFmpeg: atempo (speed), aformat (the encoder's sample format and rate),
 * the encoder, the muxer writing into `sink`. After each input frame it yields what the muxer
 * wrote since the last yield (nothing for a seekable sink, which keeps its file). Every FFmpeg
 * call is node-av's async form: the codec work runs on libuv's thread pool, node-av's bookkeeping
 * around each call on the main thread (a third to two thirds of the CPU, in slices of a few ms:
 * bench:audio). Returning early (the consumer stopped) still frees the filter graph, the encoder
 * and the muxer.
 */
export async function* runPipeline(
  pcm: Buffer,
  options: CheckedOptions,
  sink: OutputSink,
  ioBufferBytes: number,
): AsyncGenerator<Buffer[], PipelineResult> {
  const av = await loadNodeAv();
  const spec = formatSpecs[options.format];
  const rate = outputRate(av, spec, options.sampleRate);
  const graph = [...tempoFilters(options.speed), `aformat=sample_fmts=${spec.sampleFormat}:sample_rates=${rate}:channel_layouts=mono`];
  const filter = av.FilterAPI.create(graph.join(','));
  let encoder: Encoder | undefined;
  let muxer: Muxer | undefined;
  let samples = 0;
  try {
    encoder = await av.Encoder.create(spec.encoder, { filter, context: spec.bitRate ? { bitRate: spec.bitRate } : {} });
    // bitexact: no encoder-version tags, so a WAV header is the plain 44 bytes clients expect.
    // flush_packets 0: chunks of ioBufferBytes, not one write per packet (192 bytes of MP3).
    muxer = await av.Muxer.open(sink.io, {
      format: spec.muxer,
      bufferSize: ioBufferBytes,
      options: { fflags: '+bitexact', flush_packets: 0 },
    });
    const stream = muxer.addStream(encoder);
    const encodeAndWrite = async (frame: Frame | null) => {
      for await (const packet of encoder!.packets(frame)) {
        if (!packet) continue;
        try {
          await muxer!.writePacket(packet, stream);
        } finally {
          packet.free();
        }
      }
    };
    const filterThrough = async (frame: Frame | null) => {
      for await (const filtered of filter.frames(frame)) {
        if (!filtered) continue;
        try {
          samples += filtered.nbSamples;
          await encodeAndWrite(filtered);
        } finally {
          filtered.free();
        }
      }
    };

    const sampleCount = pcm.length / 2;
    for (let start = 0; start < sampleCount; start += FRAME_SAMPLES) {
      const count = Math.min(FRAME_SAMPLES, sampleCount - start);
      const frame = av.Frame.fromAudioBuffer(pcm.subarray(start * 2, (start + count) * 2), {
        nbSamples: count,
        format: av.AV_SAMPLE_FMT_S16,
        sampleRate: options.sampleRate,
        channelLayout: av.AV_CHANNEL_LAYOUT_MONO,
        timeBase: { num: 1, den: options.sampleRate },
        pts: BigInt(start),
      });
      try {
        await filterThrough(frame);
      } finally {
        frame.free();
      }
      yield sink.take();
    }
    await filterThrough(null);
    const padding = tailPadding(av, encoder, spec, rate, samples);
    if (padding) {
      try {
        await encodeAndWrite(padding);
      } finally {
        padding.free();
      }
    }
    await encodeAndWrite(null);
    // the trailer: FLAC's STREAMINFO, WAV's sizes and MP3's Xing frame, where the sink can seek
    await muxer.close();
    yield sink.take();
    return { samples, sampleRate: rate };
  } finally {
    await muxer?.close();
    encoder?.close();
    filter.close();
  }
}
