/**
 * npm run bench:doors: what the OpenAI-dialect doors cost beside the paths they share a job with.
 * 1. Speech: the same text through Gemini's generateContent (PCM back as base64) and through
 *    /v1/audio/speech as mp3 and opus (encoded by the worker, streamed back): latency, and api
 *    and worker CPU per request (the encode's own cost is the worker's difference).
 * 2. Images as they are made: a set of 4 with the simulator spacing its images, time to the first
 *    image with `stream: true` against the whole answer without it.
 * Sequential (c=1) so the latencies are the path's, not a queue's; a quiet machine gives steadier figures.
 */
import { cpuPerRequest } from './cpu.js';
import { percentile, runLoad } from './load.js';
import { benchKey, startBenchStack } from './stack.js';

const QUICK = process.env.BENCH_QUICK === '1';
const SPEECH_N = QUICK ? 10 : 60;
const SETS = QUICK ? 2 : 5;
const TEXT = 'The lighthouse keeper climbed the stairs at dusk and lit the lamp for the ships that were still at sea.';

const stack = await startBenchStack();
try {
  const worker = await stack.start('worker');
  const api = await stack.start('api');
  const key = await benchKey(api);
  const pids = { api: api.child.pid!, worker: worker.child.pid! };
  await stack.simConfig({ SIM_LATENCY_MS: 0, SIM_IMAGE_SPACING_MS: 0 });

  const gemini = () =>
    fetch(`${api.ready.url}/v1beta/models/vendor-2.5-flash-preview-tts:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': key },
      body: JSON.stringify({
        contents: [{ parts: [{ text: TEXT }] }],
        generationConfig: { responseModalities: ['AUDIO'], speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } } },
      }),
    });
  const openai = (format: string) => () =>
    fetch(`${api.ready.url}/v1/audio/speech`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: 'tts-1', voice: 'nova', input: TEXT, response_format: format }),
    });
  const doors: Array<[string, () => Promise<Response>]> = [
    ['gemini generateContent (PCM)', gemini],
    ['openai audio.speech mp3', openai('mp3')],
    ['openai audio.speech opus', openai('opus')],
    ['openai audio.speech wav', openai('wav')],
  ];
  for (const [, send] of doors) await runLoad(5, 1, send); // warm: FFmpeg loaded, connections open
  const speech: Record<string, Record<string, number>> = {};
  for (const [name, send] of doors) {
    const { result, perRequestMs } = await cpuPerRequest(pids, () => runLoad(SPEECH_N, 1, send));
    if (result.statuses['200'] !== SPEECH_N)
      throw new Error(`${name}: ${JSON.stringify(result.statuses)} ${JSON.stringify(result.firstErrors)}`);
    speech[name] = {
      'p50 ms': Math.round(percentile(result.latenciesMs, 50)),
      'p95 ms': Math.round(percentile(result.latenciesMs, 95)),
      'api CPU ms/req': perRequestMs.api!,
      'worker CPU ms/req': perRequestMs.worker!,
    };
  }
  const base = speech['gemini generateContent (PCM)']!;
  for (const row of Object.values(speech)) {
    row['added p50 ms'] = row['p50 ms']! - base['p50 ms']!;
    row['added worker CPU ms'] = Math.round((row['worker CPU ms/req']! - base['worker CPU ms/req']!) * 100) / 100;
  }
  console.log(`speech: the same ${TEXT.length}-character text through both doors, ${SPEECH_N} requests each, one at a time`);
  console.table(speech);

  // a set of 4 the simulator makes 1 s apart after 1 s: what a client waits for its first image
  await stack.simConfig({ SIM_LATENCY_MS: 1_000, SIM_IMAGE_SPACING_MS: 1_000 });
  const set = { model: 'vendor-gen-5-0-260128', prompt: 'a coast in 4 images', sequential_image_generation: 'auto' };
  const post = (body: object) =>
    fetch(`${api.ready.url}/v1/images/generations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify(body),
    });
  const whole: number[] = [];
  const first: number[] = [];
  const streamedAll: number[] = [];
  for (let i = 0; i < SETS; i++) {
    let t0 = performance.now();
    const res = await post(set);
    const images = ((await res.json()) as { data: unknown[] }).data.length;
    if (images !== 4) throw new Error(`expected a set of 4, got ${images}`);
    whole.push(performance.now() - t0);

    t0 = performance.now();
    const stream = await post({ ...set, stream: true });
    const reader = stream.body!.getReader();
    let text = '';
    let firstAt: number | undefined;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
      if (firstAt === undefined && text.includes('image_generation.partial_image')) firstAt = performance.now() - t0;
    }
    first.push(firstAt ?? Number.NaN);
    streamedAll.push(performance.now() - t0);
  }
  const median = (values: number[]) => Math.round(percentile(values, 50));
  console.log(`images as they are made: a set of 4, the simulator 1 s to the first image and 1 s between images, ${SETS} runs each`);
  console.table({
    'without stream: the whole answer': { 'median ms': median(whole), 'min ms': Math.round(Math.min(...whole)) },
    'stream: the first image': { 'median ms': median(first), 'min ms': Math.round(Math.min(...first)) },
    'stream: the last event': { 'median ms': median(streamedAll), 'min ms': Math.round(Math.min(...streamedAll)) },
  });
} finally {
  await stack.close();
}
