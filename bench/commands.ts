/**
 * npm run bench:commands: Redis commands per request (INFO commandstats before and after), for
 * image and speech requests through the relay built in dist/: where the round trips go.
 */
import { Redis } from 'ioredis';
import { runLoad } from './load.js';
import { benchKey, startBenchStack } from './stack.js';

const N = Number(process.env.BENCH_REQUESTS ?? 500);
const stack = await startBenchStack();
const redis = new Redis(stack.redis.url);
const stats = async () => {
  const out: Record<string, number> = {};
  for (const line of (await redis.info('commandstats')).split('\n')) {
    const m = /^cmdstat_(\w+):calls=(\d+)/.exec(line);
    if (m) out[m[1]!] = Number(m[2]);
  }
  return out;
};
try {
  const worker = await stack.start('worker');
  const api = await stack.start('api');
  const key = await benchKey(api);
  const targets = {
    images: () =>
      fetch(`${api.ready.url}/v1/images/generations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ model: 'vendor-gen-4-0-250828', prompt: 'x' }),
      }),
    speech: () =>
      fetch(`${api.ready.url}/v1beta/models/vendor-2.5-flash-preview-tts:generateContent`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': key },
        body: JSON.stringify({
          contents: [{ parts: [{ text: 'Good evening, all.' }] }],
          generationConfig: {
            responseModalities: ['AUDIO'],
            speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Kore' } } },
          },
        }),
      }),
  };
  // the commands clients send (MONITOR marks those a script runs with "lua"), by connection name
  const monitor = await redis.monitor();
  let watching = false;
  const sent = new Map<string, number>();
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    if (!watching || source.includes('lua')) return;
    const name = String(args[0]).toLowerCase();
    const label = name === 'evalsha' || name === 'eval' ? `${name} (${args[1]?.slice(0, 8)})` : name;
    sent.set(label, (sent.get(label) ?? 0) + 1);
  });
  for (const [name, send] of Object.entries(targets)) {
    sent.clear();
    watching = true;
    await runLoad(20, 1, send);
    watching = false;
    const trips = [...sent].sort((a, b) => b[1] - a[1]).map(([cmd, n]) => [cmd, n / 20] as const);
    console.log(`${name}: ${trips.reduce((s, [, v]) => s + v, 0).toFixed(1)} commands sent to Redis per request, one at a time (c=1)`);
    console.table(Object.fromEntries(trips));
    await runLoad(50, 8, send);
    await new Promise((r) => setTimeout(r, 1_500)); // let periodic work settle out of the window
    const before = await stats();
    const t0 = Date.now();
    await runLoad(N, 16, send);
    const seconds = (Date.now() - t0) / 1000;
    const after = await stats();
    const per = Object.entries(after)
      .map(([cmd, calls]) => [cmd, Math.round(((calls - (before[cmd] ?? 0)) / N) * 100) / 100] as const)
      .filter(([, v]) => v > 0)
      .sort((a, b) => b[1] - a[1]);
    console.log(
      `${name}: ${per.reduce((s, [, v]) => s + v, 0).toFixed(1)} commands per request (${seconds.toFixed(1)} s, periodic work included)`,
    );
    console.table(Object.fromEntries(per));
  }
  await Promise.all([worker.stop(), api.stop()]);
} finally {
  redis.disconnect();
  await stack.close();
}
