import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Probe {
  container: string;
  codec: string;
  sampleRate: number;
  channels: number;
  durationS: number;
}

/**
 * What Debian's ffprobe (an encoder the relay does not use) reads in an answer: the container,
 * codec, rate, channels and duration, decoding the whole file for the duration. Raw pcm has no
 * header: it is read as what OpenAI says it is (24 kHz 16-bit little-endian mono).
 */
export function probe(bytes: Buffer, raw = false): Probe {
  const dir = mkdtempSync(join(tmpdir(), 'relay-probe-'));
  try {
    const file = join(dir, 'audio');
    writeFileSync(file, bytes);
    const input = raw ? ['-f', 's16le', '-ar', '24000', '-ac', '1', '-i', file] : ['-i', file];
    const out = execFileSync(
      'ffprobe',
      [
        '-v',
        'error',
        ...input.slice(0, -2),
        '-show_entries',
        'stream=codec_name,sample_rate,channels:format=format_name,duration',
        '-of',
        'json',
        file,
      ],
      { encoding: 'utf8' },
    );
    const info = JSON.parse(out) as {
      streams: Array<{ codec_name: string; sample_rate: string; channels: number }>;
      format: { format_name: string; duration?: string };
    };
    const stream = info.streams[0]!;
    // the decoded length, not the header's claim (a streamed container may not state one)
    const decoded = execFileSync('ffmpeg', ['-v', 'error', ...input, '-f', 's16le', '-ac', '1', '-ar', '24000', '-'], {
      maxBuffer: 256 * 1024 * 1024,
    });
    return {
      container: info.format.format_name,
      codec: stream.codec_name,
      sampleRate: Number(stream.sample_rate),
      channels: stream.channels,
      durationS: decoded.length / 2 / 24_000,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
