/**
 * npm run bench:audio: what encoding Gemini's speech costs, per response_format. For a 10 s, a
 * 60 s and a 300 s clip of speech-like 24 kHz PCM: the wall time of encodeSpeech, the CPU it
 * used (the process's, so FFmpeg's work on libuv's pool counts) per second of audio and the
 * part of it spent on the main thread, the longest synchronous stretch (the main thread's CPU
 * between two ticks of a 1 ms timer: an upper bound, and unlike a timer's lateness it does not
 * count time the OS gave to other processes), the event loop's longest delay (a 1 ms timer's
 * lateness, which on a loaded machine includes that time), and the stream form's time to its
 * first chunk. Writes bench/results/audio-<time>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { encodeSpeech, encodeSpeechStream, preloadSpeechEncoder, speechFormatSchema, type SpeechFormat } from '@relay/audio';
import { repoRoot } from '@relay/testkit';

const RATE = 24_000;
const CLIPS_S = (process.env.BENCH_AUDIO_CLIPS ?? '10,60,300').split(',').map(Number);
const RUNS = Number(process.env.BENCH_AUDIO_RUNS ?? 3);
const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * Not a sine, which codecs find too easy: a voice-like buzz (harmonics of a gliding 100-220 Hz
 * fundamental), syllables at 4 Hz, short pauses, and a little noise.
 */
function speechLike(seconds: number): Buffer {
  const samples = seconds * RATE;
  const pcm = Buffer.alloc(samples * 2);
  let phase = 0;
  let seed = 1;
  for (let i = 0; i < samples; i++) {
    const t = i / RATE;
    const f0 = 160 + 60 * Math.sin(2 * Math.PI * 0.3 * t);
    phase += (2 * Math.PI * f0) / RATE;
    let voice = 0;
    for (let h = 1; h <= 12; h++) voice += Math.sin(h * phase) / h;
    const syllable = Math.max(0, Math.sin(2 * Math.PI * 4 * t)) * (t % 3 < 2.6 ? 1 : 0);
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    const noise = seed / 2 ** 31 - 0.5;
    pcm.writeInt16LE(Math.round((voice * syllable * 0.5 + noise * 0.02) * 20_000), i * 2);
  }
  return pcm;
}

interface Measure {
  wallMs: number;
  cpuMs: number;
  mainThreadCpuMs: number;
  longestSyncMs: number;
  loopMaxMs: number;
}

const cpuMsOf = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000;
// the main thread's own CPU: Node 23.9 and later (the project's @types/node is 20's); elsewhere the
// main-thread columns read as the whole process's, an overestimate
const threadCpu = (process as NodeJS.Process & { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage;
const mainThreadCpuMs = () => cpuMsOf(threadCpu ? threadCpu.call(process) : process.cpuUsage());

async function measure(work: () => Promise<unknown>): Promise<Measure> {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const thread = mainThreadCpuMs();
  let tick = thread;
  let longestSyncMs = 0;
  const ticker = setInterval(() => {
    const now = mainThreadCpuMs();
    longestSyncMs = Math.max(longestSyncMs, now - tick);
    tick = now;
  }, 1);
  const cpu = process.cpuUsage();
  const start = performance.now();
  await work();
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  const end = mainThreadCpuMs();
  longestSyncMs = Math.max(longestSyncMs, end - tick);
  clearInterval(ticker);
  loop.disable();
  return { wallMs, cpuMs: cpuMsOf(used), mainThreadCpuMs: end - thread, longestSyncMs, loopMaxMs: loop.max / 1e6 };
}

async function firstChunkMs(pcm: Buffer, format: SpeechFormat): Promise<number> {
  const start = performance.now();
  const stream = encodeSpeechStream(pcm, { format });
  await stream.next();
  const ms = performance.now() - start;
  await stream.return();
  return ms;
}

// loading node-av's FFmpeg: measured apart, then out of the way
const load = await measure(preloadSpeechEncoder);
console.log(`loading FFmpeg: ${round(load.wallMs)} ms, longest synchronous ${round(load.longestSyncMs)} ms`);
await encodeSpeech(speechLike(1), { format: 'mp3' });

const rows: Record<string, unknown>[] = [];
const cases: [SpeechFormat, number][] = [
  ...speechFormatSchema.options.map((format) => [format, 1] as [SpeechFormat, number]),
  ['mp3', 1.5],
  ['opus', 1.5],
];
for (const seconds of CLIPS_S) {
  const pcm = speechLike(seconds);
  console.log(`\n${seconds} s clip`);
  console.log('format  speed  wall ms  cpu ms  cpu ms/audio s  main thread %  longest sync ms  loop max ms  first chunk ms     bytes');
  for (const [format, speed] of cases) {
    const runs: Measure[] = [];
    let bytes = 0;
    for (let run = 0; run < (seconds >= 300 ? 1 : RUNS); run++) {
      runs.push(await measure(async () => (bytes = (await encodeSpeech(pcm, { format, speed })).bytes.length)));
    }
    const wallMs = median(runs.map((r) => r.wallMs));
    const cpuMs = median(runs.map((r) => r.cpuMs));
    const loopMaxMs = Math.max(...runs.map((r) => r.loopMaxMs));
    const longestSyncMs = Math.max(...runs.map((r) => r.longestSyncMs));
    const mainThreadShare = median(runs.map((r) => r.mainThreadCpuMs / r.cpuMs));
    const first = await firstChunkMs(pcm, format);
    const row = {
      seconds,
      format,
      speed,
      wallMs: round(wallMs),
      cpuMs: round(cpuMs),
      cpuMsPerAudioSecond: round(cpuMs / seconds, 2),
      mainThreadPercent: round(mainThreadShare * 100, 0),
      longestSyncMs: round(longestSyncMs),
      loopMaxMs: round(loopMaxMs),
      firstChunkMs: round(first),
      bytes,
    };
    rows.push(row);
    console.log(
      [
        format.padEnd(6),
        String(speed).padStart(6),
        String(row.wallMs).padStart(8),
        String(row.cpuMs).padStart(7),
        String(row.cpuMsPerAudioSecond).padStart(15),
        String(row.mainThreadPercent).padStart(14),
        String(row.longestSyncMs).padStart(16),
        String(row.loopMaxMs).padStart(12),
        String(row.firstChunkMs).padStart(15),
        String(bytes).padStart(9),
      ].join(' '),
    );
  }
}

const dir = join(repoRoot, 'bench', 'results');
mkdirSync(dir, { recursive: true });
const file = join(dir, `audio-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
writeFileSync(file, JSON.stringify({ at: new Date().toISOString(), runs: RUNS, loadingFfmpeg: load, rows }, null, 2));
console.log(`\nwrote ${file}`);
