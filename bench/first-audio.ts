import { GEMINI_VOICES, loadCatalog } from '@relay/core';
import type { BenchStack } from './stack.js';
import { benchConfig, benchKey } from './stack.js';
import { percentile } from './load.js';
import { round } from './compare.js';

/**
 * Time to first audio: how long a caller waits for the first byte of speech, through the relay
 * (the queue, the worker, the parts stream, the api) and straight from the vendor, on a model
 * that streams (a 3.8 clip of about 8 s, a piece a second, SPACING_MS apart). The relay's own
 * share is its first byte minus the vendor's first piece; the whole clip beside it says how much
 * sooner the first audio comes than the last.
 */
const MODEL = 'vendor-3.8-flash-tts';
const VENDOR_MODEL = 'gemini-3.8-flash-tts';
const SPACING_MS = 100;
const TEXT = 'The keeper climbed the winding stairs at dusk and lit the great lamp so the ships could find the harbour.';
// speech only: a catalog any checkout under test reads (BENCH_RELAY_DIR), whatever its image fields
const catalog = {
  upstreams: loadCatalog({}).upstreams,
  imageModels: {},
  speechModels: {
    [MODEL]: {
      upstream: 'gemini',
      upstreamModel: VENDOR_MODEL,
      price: { inputPerMillion: 1_000_000, outputPerMillion: 20_000_000 },
      voices: GEMINI_VOICES,
      defaultVoice: 'Kore',
    },
  },
};
const GEMINI_BODY = {
  contents: [{ parts: [{ text: TEXT }] }],
  generationConfig: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } } },
};

interface Timing {
  firstMs: number;
  wholeMs: number;
}

/** One call: the time to its first body byte and to its last. */
async function timed(url: string, body: unknown, headers: Record<string, string>): Promise<Timing> {
  const start = performance.now();
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  if (res.status !== 200) throw new Error(`${url}: HTTP ${res.status}: ${await res.text()}`);
  const reader = res.body!.getReader();
  let firstMs: number | undefined;
  for (let step = await reader.read(); !step.done; step = await reader.read()) firstMs ??= performance.now() - start;
  return { firstMs: firstMs ?? Number.NaN, wholeMs: performance.now() - start };
}

const summary = (timings: Timing[]) => {
  const first = timings.map((t) => t.firstMs);
  const whole = timings.map((t) => t.wholeMs);
  return {
    firstP50Ms: round(percentile(first, 50)),
    firstP99Ms: round(percentile(first, 99)),
    wholeP50Ms: round(percentile(whole, 50)),
    wholeP99Ms: round(percentile(whole, 99)),
  };
};

export interface FirstAudioReport {
  requests: number;
  chunkSpacingMs: number;
  rows: Array<Record<string, number | string>>;
}

export async function firstAudio(stack: BenchStack, requests: number): Promise<FirstAudioReport> {
  await stack.simConfig({ SIM_SPEECH_CHUNK_MS: SPACING_MS, SIM_LATENCY_MS: 50 });
  const env = { RELAY_CONFIG: benchConfig({ catalog }) };
  const worker = await stack.start('worker', env);
  const api = await stack.start('api', env);
  try {
    const key = await benchKey(api);
    const sim = stack.sim.ready.url!;
    const calls = {
      vendor: () =>
        timed(`${sim}/v1beta/models/${VENDOR_MODEL}:streamGenerateContent?alt=sse`, GEMINI_BODY, { 'x-goog-api-key': 'sim-key' }),
      'relay gemini sse': () =>
        timed(`${api.ready.url}/v1beta/models/${MODEL}:streamGenerateContent?alt=sse`, GEMINI_BODY, { 'x-goog-api-key': key }),
      'relay openai mp3': () =>
        timed(`${api.ready.url}/v1/audio/speech`, { model: MODEL, voice: 'alloy', input: TEXT }, { authorization: `Bearer ${key}` }),
      'relay openai sse': () =>
        timed(
          `${api.ready.url}/v1/audio/speech`,
          { model: MODEL, voice: 'alloy', input: TEXT, stream_format: 'sse' },
          { authorization: `Bearer ${key}` },
        ),
    };
    const results: Record<string, Timing[]> = {};
    for (const [name, call] of Object.entries(calls)) {
      await call(); // warm: connections, the encoder
      results[name] = [];
      // one at a time: the figure is a caller's wait, not a queue's
      for (let i = 0; i < requests; i++) results[name].push(await call());
    }
    const vendor = summary(results.vendor!);
    const rows = Object.entries(results).map(([name, timings]) => {
      const own = summary(timings);
      return {
        target: name,
        ...own,
        ...(name === 'vendor'
          ? {}
          : { addedFirstP50Ms: round(own.firstP50Ms - vendor.firstP50Ms), addedFirstP99Ms: round(own.firstP99Ms - vendor.firstP99Ms) }),
      };
    });
    return { requests, chunkSpacingMs: SPACING_MS, rows };
  } finally {
    await Promise.all([worker.stop(), api.stop()]);
    await stack.simConfig({ SIM_SPEECH_CHUNK_MS: 0 });
  }
}

export function printFirstAudio(report: FirstAudioReport) {
  console.log(
    `\ntime to first audio (one call at a time, ${report.requests} each; the vendor streams a piece a second of audio, ${report.chunkSpacingMs} ms apart): the relay's first byte, its share beyond the vendor's first piece, and the whole clip`,
  );
  console.table(report.rows);
}
