import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * Debian's ffprobe and ffmpeg, an implementation independent of the encoder under test, read the
 * results back. The tests need both on PATH (CI installs Debian's `ffmpeg` package).
 */
const run = promisify(execFile);

export interface Probe {
  formatName: string;
  codecName: string;
  sampleRate: number;
  channels: number;
  /** Seconds from the container's own metadata, when it has any. */
  duration?: number;
}

// raw PCM has no header to probe: say what it is
const rawPcm = ['-f', 's16le', '-ar', '24000', '-ch_layout', 'mono'];

async function withFile<T>(bytes: Buffer, use: (path: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'relay-audio-'));
  try {
    const path = join(dir, 'audio');
    await writeFile(path, bytes);
    return await use(path);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export function probe(bytes: Buffer, raw = false): Promise<Probe> {
  return withFile(bytes, async (path) => {
    const fields = 'format=format_name,duration:stream=codec_name,sample_rate,channels,duration';
    const { stdout } = await run('ffprobe', ['-v', 'error', ...(raw ? rawPcm : []), '-show_entries', fields, '-of', 'json', path]);
    const json = JSON.parse(stdout) as { format: Record<string, string>; streams: Record<string, string | number>[] };
    const stream = json.streams[0]!;
    const duration = Number(json.format.duration ?? stream.duration);
    return {
      formatName: json.format.format_name!,
      codecName: String(stream.codec_name),
      sampleRate: Number(stream.sample_rate),
      channels: Number(stream.channels),
      duration: Number.isFinite(duration) ? duration : undefined,
    };
  });
}

/**
 * The audio decoded to mono 16-bit PCM at `sampleRate`: what a player would hear. `demuxer` names
 * the container as a Content-Type tells a player: FFmpeg's guess from the bytes alone can fail on a
 * tiny file (an ADTS stream of two frames, as Debian's own `ffmpeg -c:a aac` writes for 40 ms).
 */
export function decode(bytes: Buffer, raw = false, sampleRate = 24_000, demuxer?: string): Promise<Buffer> {
  return withFile(bytes, async (path) => {
    const input = raw ? rawPcm : demuxer ? ['-f', demuxer] : [];
    const args = ['-v', 'error', ...input, '-i', path, '-f', 's16le', '-ac', '1', '-ar', String(sampleRate), '-'];
    const { stdout } = await run('ffmpeg', args, { encoding: 'buffer', maxBuffer: 256 * 1024 * 1024 });
    return stdout;
  });
}

export const secondsOf = (pcm: Buffer, sampleRate = 24_000) => pcm.length / 2 / sampleRate;

export interface EncodedFile {
  bytes: Buffer;
  /** Bare 16-bit samples at 24 kHz (the pcm format): nothing to probe. */
  raw?: boolean;
  /** The container, as `decode` takes it. */
  demuxer?: string;
}

/**
 * Several files decoded as `decode` does each, by one ffmpeg: starting a process per file was most
 * of the time of a test over dozens of lengths.
 */
export async function decodeAll(files: EncodedFile[], sampleRate = 24_000): Promise<Buffer[]> {
  if (files.length === 0) return [];
  const dir = await mkdtemp(join(tmpdir(), 'relay-audio-'));
  try {
    const inputs: string[] = [];
    const outputs: string[] = [];
    for (const [i, file] of files.entries()) {
      const path = join(dir, `in-${i}`);
      await writeFile(path, file.bytes);
      inputs.push(...(file.raw ? rawPcm : file.demuxer ? ['-f', file.demuxer] : []), '-i', path);
      outputs.push('-map', `${i}:a`, '-f', 's16le', '-ac', '1', '-ar', String(sampleRate), join(dir, `out-${i}`));
    }
    await run('ffmpeg', ['-v', 'error', ...inputs, ...outputs]);
    return await Promise.all(files.map((_, i) => readFile(join(dir, `out-${i}`))));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
