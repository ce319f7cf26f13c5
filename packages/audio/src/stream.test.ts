import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { encodeSpeechStream, speechFormatSchema } from './index.js';
import { sinePcm } from './testing/signals.js';

describe('a consumer that stops early', () => {
  it('leaves nothing running: the process that stopped every format mid-stream exits by itself', async () => {
    const script = fileURLToPath(new URL('./testing/stop-early.ts', import.meta.url));
    const child = spawn(process.execPath, ['--conditions=relay-source', '--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    // a leak shows as a process that never exits: the test times out, and the process goes
    onTestFinished(() => void child.kill());
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (data: Buffer) => (stdout += data.toString()));
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as { seen: Record<string, number>; resources: string[] };
    expect(Object.keys(report.seen).sort()).toEqual([...speechFormatSchema.options].sort());
    for (const bytes of Object.values(report.seen)) expect(bytes).toBeGreaterThan(0);
    // what keeps a process alive once the script is done: only its own stdout/stderr pipes
    expect(report.resources.filter((kind) => kind !== 'TTYWrap' && kind !== 'PipeWrap')).toEqual([]);
  });

  it('ends the iteration: the stream is done after return(), and the next encode still works', async () => {
    const clip = sinePcm(440, 20);
    const stream = encodeSpeechStream(clip, { format: 'opus', speed: 2 });
    expect((await stream.next()).done).toBe(false);
    expect(await stream.return()).toEqual({ done: true, value: undefined });
    expect((await stream.next()).done).toBe(true);
    let bytes = 0;
    for await (const chunk of encodeSpeechStream(clip, { format: 'opus', speed: 2 })) bytes += chunk.length;
    expect(bytes).toBeGreaterThan(10_000);
  });
});
