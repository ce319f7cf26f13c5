import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Seconds of audio Debian's ffmpeg decodes from a file (raw pcm read as OpenAI states it: 24 kHz 16-bit mono). */
export function decodedSeconds(bytes: Buffer, raw: boolean): number {
  const dir = mkdtempSync(join(tmpdir(), 'relay-decode-'));
  try {
    writeFileSync(join(dir, 'audio'), bytes);
    const input = [...(raw ? ['-f', 's16le', '-ar', '24000', '-ac', '1'] : []), '-i', join(dir, 'audio')];
    const pcm = execFileSync('ffmpeg', ['-v', 'error', ...input, '-f', 's16le', '-ac', '1', '-ar', '24000', '-'], {
      maxBuffer: 64 * 1024 * 1024,
    });
    return pcm.length / 2 / 24_000;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
