import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
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

/** The audio decoded to mono 16-bit PCM at `sampleRate`: what a player would hear. */
export function decode(bytes: Buffer, raw = false, sampleRate = 24_000): Promise<Buffer> {
  return withFile(bytes, async (path) => {
    const args = ['-v', 'error', ...(raw ? rawPcm : []), '-i', path, '-f', 's16le', '-ac', '1', '-ar', String(sampleRate), '-'];
    const { stdout } = await run('ffmpeg', args, { encoding: 'buffer', maxBuffer: 256 * 1024 * 1024 });
    return stdout;
  });
}

export const secondsOf = (pcm: Buffer, sampleRate = 24_000) => pcm.length / 2 / sampleRate;
