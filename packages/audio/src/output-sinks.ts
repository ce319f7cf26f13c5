import type { IOOutputCallbacks } from 'node-av/api';

// FFmpeg's whence values (libavformat/avio.h): AVSEEK_SIZE asks for the size without moving,
// AVSEEK_FORCE may be or-ed onto the others.
const SEEK_SET = 0;
const SEEK_CUR = 1;
const SEEK_END = 2;
const AVSEEK_SIZE = 0x10000;
const AVSEEK_FORCE = 0x20000;

/** Where the muxer writes: its callbacks, and what it has written since the last look. */
export interface OutputSink {
  readonly io: IOOutputCallbacks;
  /** The chunks written since the last call, in order (a seekable sink keeps them to itself). */
  take(): Buffer[];
}

/**
 * Chunks in the order FFmpeg writes them, for a stream: nothing sent can be rewritten, so
 * there is no seek and the muxer leaves what it learns at the end (FLAC's sample count, WAV's
 * sizes) as "unknown", as any streamed file of these kinds does.
 */
export function streamSink(): OutputSink {
  let pending: Buffer[] = [];
  return {
    // FFmpeg reuses its buffer after the callback returns: keep a copy
    io: { write: (data) => void pending.push(Buffer.from(data)) },
    take() {
      const chunks = pending;
      pending = [];
      return chunks;
    },
  };
}

export interface MemorySink extends OutputSink {
  /** The whole file as the muxer left it. */
  contents(): Buffer;
}

/** A seekable file in memory, so the muxer can go back and fill its header in at the end. */
export function memorySink(initialBytes = 64 * 1024): MemorySink {
  let bytes = Buffer.alloc(initialBytes);
  let length = 0;
  let position = 0;
  const reserve = (end: number) => {
    if (end <= bytes.length) return;
    const grown = Buffer.alloc(Math.max(end, bytes.length * 2));
    bytes.copy(grown, 0, 0, length);
    bytes = grown;
  };
  return {
    io: {
      write(data) {
        reserve(position + data.length);
        data.copy(bytes, position);
        position += data.length;
        length = Math.max(length, position);
      },
      seek(offset, whence) {
        const by = Number(offset);
        const mode = whence & ~AVSEEK_FORCE;
        if (mode === AVSEEK_SIZE) return BigInt(length);
        if (mode === SEEK_SET) position = by;
        else if (mode === SEEK_CUR) position += by;
        else if (mode === SEEK_END) position = length + by;
        else return -1;
        return BigInt(position);
      },
    },
    take: () => [],
    contents: () => Buffer.from(bytes.subarray(0, length)),
  };
}
