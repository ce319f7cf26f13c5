import type * as NodeAvModule from 'node-av';
import type { CodecContext, FilterAPI, FormatContext, Frame, IOContext } from 'node-av';
import type { CheckedOptions } from './encode-options.js';
import { wholeSamples } from './whole-samples.js';
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

/**
 * The encoder, driven through FFmpeg's CodecContext itself, not node-av's Encoder: that class (6.1)
 * re-chunks audio through a FIFO of its own and breaks FFmpeg's send/receive contract. It sends one
 * frame per packet asked for and stops at the first "no packet yet" (EAGAIN), so while an encoder
 * primes (LAME returns nothing for its first frames) whole frames pile up in the FIFO; at the end
 * it sends them all without taking a packet out, FFmpeg refuses all but one or two (EAGAIN, not
 * checked) and then the end of stream too, and a last part frame is dropped. A clip of up to two input
 * chunks (~1.4 s at 24 kHz) lost almost everything: "Sure!" decoded as 0.05 s of MP3, a
 * frame-aligned AAC clip as its first two frames. (Padding the last frame with silence only hid the
 * part frame, and made FLAC up to a block longer.) Here a frame is sent once and every packet is
 * taken out before the next, and the last frame goes in short: MP3, AAC, Opus and FLAC all take
 * one (AV_CODEC_CAP_SMALL_LAST_FRAME) and record the true length (LAME's padding, Ogg's last
 * granule, FLAC's sample count), so a file decodes to the audio's length.
 */
async function openEncoder(av: NodeAv, spec: FormatSpec, rate: number, output: FormatContext): Promise<CodecContext> {
  const codec = av.Codec.findEncoderByName(spec.encoder);
  if (!codec) throw new av.FFmpegError(av.AVERROR_ENCODER_NOT_FOUND);
  const context = new av.CodecContext();
  context.allocContext3(codec);
  try {
    context.sampleRate = rate;
    context.sampleFormat = { s16: av.AV_SAMPLE_FMT_S16, s16p: av.AV_SAMPLE_FMT_S16P, fltp: av.AV_SAMPLE_FMT_FLTP }[spec.sampleFormat];
    context.channelLayout = av.AV_CHANNEL_LAYOUT_MONO;
    context.timeBase = new av.Rational(1, rate);
    if (spec.bitRate) context.bitRate = BigInt(spec.bitRate);
    if (output.oformat?.hasFlags(av.AVFMT_GLOBALHEADER)) context.setFlags(av.AV_CODEC_FLAG_GLOBAL_HEADER);
    av.FFmpegError.throwIfError(await context.open2(codec, null), `open the ${spec.encoder} encoder`);
    return context;
  } catch (error) {
    context.freeContext();
    throw error;
  }
}

/** The muxer, writing through the sink's callbacks: its stream is added once the encoder is open. */
function openOutput(av: NodeAv, spec: FormatSpec, sink: OutputSink, ioBufferBytes: number): { output: FormatContext; io: IOContext } {
  const output = new av.FormatContext();
  const io = new av.IOContext();
  try {
    av.FFmpegError.throwIfError(output.allocOutputContext2(null, spec.muxer, null), `open the ${spec.muxer} muxer`);
    io.allocContextWithCallbacks(ioBufferBytes, 1, null, sink.io.write, sink.io.seek ?? null);
    output.pb = io;
    output.setFlags(av.AVFMT_FLAG_CUSTOM_IO);
    // bitexact: no encoder-version tags, so a WAV header is the plain 44 bytes clients expect.
    // flush_packets 0: chunks of ioBufferBytes, not one write per packet (192 bytes of MP3).
    for (const [key, value] of Object.entries({ fflags: '+bitexact', flush_packets: '0' }))
      av.FFmpegError.throwIfError(output.setOption(key, value), `set the muxer's ${key}`);
    return { output, io };
  } catch (error) {
    closeOutput(output, io);
    throw error;
  }
}

/** The muxer first (a stop before the trailer included), then the callbacks it wrote through. */
function closeOutput(output: FormatContext, io: IOContext): void {
  output.pb = null;
  output.freeContext();
  io.freeContext();
}

/**
 * Mono 16-bit PCM through FFmpeg: atempo (speed), aformat (the encoder's sample format and rate),
 * asetnsamples (the encoder's frame size), the encoder, the muxer writing into `sink`. After each
 * input frame it yields what the muxer wrote since the last yield (nothing for a seekable sink,
 * which keeps its file). `pcm` is the whole clip, or its pieces as they are made: then each piece
 * is encoded as it comes and what it gave is yielded at once. Every FFmpeg call is node-av's async form: the codec work runs on libuv's
 * thread pool, node-av's bookkeeping around each call on the main thread (a third to two thirds of
 * the CPU, in slices of a few ms: bench:audio). Returning early (the consumer stopped) still frees
 * the filter graph, the encoder and the muxer.
 */
export async function* runPipeline(
  pcm: Buffer | AsyncIterable<Buffer> | Iterable<Buffer>,
  options: CheckedOptions,
  sink: OutputSink,
  ioBufferBytes: number,
): AsyncGenerator<Buffer[], PipelineResult> {
  const live = !Buffer.isBuffer(pcm);
  const av = await loadNodeAv();
  const spec = formatSpecs[options.format];
  const rate = outputRate(av, spec, options.sampleRate);
  const { output, io } = openOutput(av, spec, sink, ioBufferBytes);
  let encoder: CodecContext | undefined;
  let filter: FilterAPI | undefined;
  const packet = new av.Packet();
  packet.alloc();
  let samples = 0;
  try {
    encoder = await openEncoder(av, spec, rate, output);
    // A codec with a fixed frame size takes exactly that many samples a frame, all but the last
    // (what FFmpeg's own CLI arranges with av_buffersink_set_frame_size); p=0: the last stays short.
    const frameSize = encoder.frameSize;
    const graph = [...tempoFilters(options.speed), `aformat=sample_fmts=${spec.sampleFormat}:sample_rates=${rate}:channel_layouts=mono`];
    if (frameSize > 0) graph.push(`asetnsamples=n=${frameSize}:p=0`);
    filter = av.FilterAPI.create(graph.join(','));

    const stream = output.newStream(null);
    av.FFmpegError.throwIfError(stream.codecpar.fromContext(encoder), 'describe the stream');
    stream.timeBase = encoder.timeBase;
    av.FFmpegError.throwIfError(await output.writeHeader(), 'write the header');

    const codec = encoder;
    // every packet the encoder has ready, into the muxer (whose time base the header chose: MP3's is 1/14112000)
    const drainPackets = async () => {
      for (;;) {
        const ret = await codec.receivePacket(packet);
        if (ret === av.AVERROR_EAGAIN || ret === av.AVERROR_EOF) return;
        av.FFmpegError.throwIfError(ret, 'encode');
        try {
          packet.streamIndex = stream.index;
          packet.rescaleTs(codec.timeBase, stream.timeBase);
          av.FFmpegError.throwIfError(await output.writeFrame(packet), 'write a packet');
        } finally {
          packet.unref();
        }
      }
    };
    // With every packet taken out after each frame, a frame is never refused: EAGAIN would be a bug, not a retry.
    const encode = async (frame: Frame | null) => {
      av.FFmpegError.throwIfError(await codec.sendFrame(frame), frame ? 'send a frame to the encoder' : 'end the encode');
      await drainPackets();
    };
    const filterThrough = async (frame: Frame | null) => {
      for await (const filtered of filter!.frames(frame)) {
        if (!filtered) continue;
        try {
          // the encoder's clock: samples since the start, whatever the tempo filter stamped
          filtered.pts = BigInt(samples);
          filtered.timeBase = codec.timeBase;
          samples += filtered.nbSamples;
          await encode(filtered);
        } finally {
          filtered.free();
        }
      }
    };

    let sent = 0;
    const send = async function* (part: Buffer) {
      const sampleCount = part.length / 2;
      for (let start = 0; start < sampleCount; start += FRAME_SAMPLES) {
        const count = Math.min(FRAME_SAMPLES, sampleCount - start);
        const frame = av.Frame.fromAudioBuffer(part.subarray(start * 2, (start + count) * 2), {
          nbSamples: count,
          format: av.AV_SAMPLE_FMT_S16,
          sampleRate: options.sampleRate,
          channelLayout: av.AV_CHANNEL_LAYOUT_MONO,
          timeBase: { num: 1, den: options.sampleRate },
          pts: BigInt(sent),
        });
        sent += count;
        try {
          await filterThrough(frame);
        } finally {
          frame.free();
        }
        if (!live) yield sink.take();
      }
    };
    if (Buffer.isBuffer(pcm)) {
      yield* send(pcm);
    } else {
      // audio as it is made: each piece goes through at once, and what the muxer has is pushed out
      // (not held for a full I/O buffer) so a listener hears it while the rest is still being made
      for await (const piece of wholeSamples(pcm, options.sampleRate)) {
        yield* send(piece);
        await io.flush();
        yield sink.take();
      }
    }
    await filterThrough(null);
    await encode(null);
    // the trailer: FLAC's STREAMINFO, WAV's sizes and MP3's Xing frame, where the sink can seek
    av.FFmpegError.throwIfError(await output.writeTrailer(), 'write the trailer');
    yield sink.take();
    return { samples, sampleRate: rate };
  } finally {
    packet.free();
    filter?.close();
    encoder?.freeContext();
    closeOutput(output, io);
  }
}
