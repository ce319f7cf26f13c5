import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, onTestFinished, test } from 'vitest';
import { startRedis, waitFor } from '@relay/testkit';
import { launch, noneLeft } from './launch.js';

/**
 * Issue 34: a second `npm start` (another checkout or data folder, other ports) on the Redis the
 * first one uses, neither setting REDIS_PREFIX. Each keeps its own keys: its channels lead to its
 * own simulator, so its calls never go to the other's (which answered 502 once that one stopped).
 */
const redis = await startRedis({ own: true });
afterAll(() => redis.close());

type Run = Awaited<ReturnType<typeof launch>>;
const END = '='.repeat(80);

/** The banner, once printed (the launcher prints it at once when all runs), or the output of a launcher that exited first. */
function bannerOf(run: Run): Promise<string> {
  return new Promise((resolve, reject) => {
    const seen = () => {
      const out = run.output();
      const tryIt = out.indexOf('  Try it:');
      if (tryIt >= 0 && out.includes(END, tryIt)) {
        run.child.stdout!.off('data', seen);
        resolve(out);
      }
    };
    run.child.stdout!.on('data', seen);
    void run.exited.then((code) => reject(new Error(`npm start exited (${code}) before its banner:\n${run.output()}`)));
    seen();
  });
}

/** npm start with no REDIS_PREFIX (launch() sets one; empty means unset), as a newcomer runs it. */
const start = (env: Record<string, string> = {}) => launch(redis.url, { REDIS_PREFIX: '', SIM_LATENCY_MS: '50', ...env });
const prefixOf = (banner: string) => /keys under the prefix "([^"]+)"/.exec(banner)?.[1];
const read = <T>(dir: string, file: string) => JSON.parse(readFileSync(join(dir, file), 'utf8')) as T;
const runningOf = (run: Run, dataDir = run.dataDir) => read<{ url: string; adminToken: string }>(dataDir, 'relay.json');

async function channelsOf(run: Run, dataDir = run.dataDir) {
  const { url, adminToken } = runningOf(run, dataDir);
  const res = await fetch(`${url}/admin/channels`, { headers: { authorization: `Bearer ${adminToken}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { channels: Array<{ id: string; baseUrl: string }> }).channels;
}

/** Every channel of the relay leads to its own simulator. */
async function expectOwnChannels(run: Run, dataDir = run.dataDir, simPort = run.ports.SIM_PORT) {
  const channels = await channelsOf(run, dataDir);
  expect(channels.length).toBeGreaterThan(0);
  for (const channel of channels) expect(new URL(channel.baseUrl).port, channel.id).toBe(String(simPort));
}

/** Speech through the relay's Gemini channel, with its demo key. */
async function speak(run: Run, dataDir = run.dataDir) {
  const { key } = read<{ key: string }>(dataDir, 'demo-key.json');
  const res = await fetch(`${runningOf(run, dataDir).url}/v1/audio/speech`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'tts-1', voice: 'nova', input: 'Welcome aboard.' }),
  });
  const body = Buffer.from(await res.arrayBuffer());
  return { status: res.status, bytes: body.length, text: res.ok ? '' : body.toString() };
}

/** Stops the launcher and waits until none of its processes is left, keeping its data folder. */
async function stop(run: Run, dataDir = run.dataDir) {
  run.child.kill('SIGTERM');
  await run.exited;
  await waitFor(() => noneLeft(dataDir), 30_000, `npm start's processes gone (${dataDir})`);
}

test('two relays on one Redis with no REDIS_PREFIX each keep their channels; a restart keeps its prefix and key; a REDIS_PREFIX in use is refused', async () => {
  const first = await start();
  onTestFinished(() => first.remove());
  const firstBanner = await bannerOf(first);
  const second = await start();
  onTestFinished(() => second.remove());
  const secondBanner = await bannerOf(second);

  const prefixes = [prefixOf(firstBanner), prefixOf(secondBanner)];
  expect(prefixes[0]).toMatch(/^relay-[0-9a-f]{8}$/);
  expect(prefixes[1]).toMatch(/^relay-[0-9a-f]{8}$/);
  expect(prefixes[0]).not.toBe(prefixes[1]);
  expect(firstBanner).toContain(`keys under the prefix "${prefixes[0]}" (this data folder's own, kept in ${first.dataDir}/redis-prefix)`);
  expect(readFileSync(join(first.dataDir, 'redis-prefix'), 'utf8').trim()).toBe(prefixes[0]);

  // the second start did not re-seed the first one's channels with its simulator's address
  await expectOwnChannels(first);
  await expectOwnChannels(second);
  for (const run of [first, second]) expect(await speak(run)).toMatchObject({ status: 200 });

  // asking for a prefix a running relay holds: refused in one line that says whose it is and what to do
  const clash = await start({ REDIS_PREFIX: prefixes[0]! });
  onTestFinished(() => clash.remove());
  expect(await clash.exited).toBe(1);
  expect(clash.output().trimEnd().split('\n').at(-1)).toBe(
    `relay: REDIS_PREFIX=${prefixes[0]} is used by the relay of ${first.dataDir} (${runningOf(first).url}, pid ${first.child.pid}) on ${redis.url}; ` +
      `two relays under one prefix take each other's channels: set another REDIS_PREFIX, or unset it for this data folder's own`,
  );

  // the other relay gone, the first one's speech still goes to its own simulator (it was a 502 after four attempts)
  await stop(second);
  expect(await speak(first)).toMatchObject({ status: 200 });

  // a restart of the same folder: the same prefix, so the same accounts and the same demo key
  const demo = read<{ key: string }>(first.dataDir, 'demo-key.json').key;
  await stop(first);
  const again = await start({ RELAY_DATA_DIR: first.dataDir, PORT: String(first.ports.PORT), SIM_PORT: String(first.ports.SIM_PORT) });
  onTestFinished(() => again.remove());
  const againBanner = await bannerOf(again);
  expect(prefixOf(againBanner)).toBe(prefixes[0]);
  expect(againBanner).toContain(`demo API key: ${demo}`);
  expect(againBanner).toMatch(/it held 1 account and \d+ jobs? under the prefix/);
  await expectOwnChannels(again, first.dataDir, first.ports.SIM_PORT);
  expect(await speak(again, first.dataDir)).toMatchObject({ status: 200 });
  await stop(again, first.dataDir);
}, 240_000);

test('two data folders an earlier npm start used (both under "relay"): the first keeps "relay", the second, while it runs, gets its own', async () => {
  // what an npm start before per-folder prefixes left: a demo key, no redis-prefix
  const folders = [0, 1].map(() => mkdtempSync(join(tmpdir(), 'relay-earlier-')));
  const runs: Run[] = [];
  onTestFinished(async () => {
    for (const run of runs.reverse()) await run.remove();
    await waitFor(() => folders.every((dir) => noneLeft(dir)), 30_000, 'both relays gone');
    for (const dir of folders) rmSync(dir, { recursive: true, force: true });
  });
  for (const dir of folders)
    writeFileSync(join(dir, 'demo-key.json'), JSON.stringify({ accountId: 'acc_gone', keyId: 'key_gone', key: 'rk_gone' }));

  const first = await start({ RELAY_DATA_DIR: folders[0]! });
  runs.push(first);
  const firstBanner = await bannerOf(first);
  expect(prefixOf(firstBanner)).toBe('relay');
  const second = await start({ RELAY_DATA_DIR: folders[1]! });
  runs.push(second);
  const secondBanner = await bannerOf(second);
  const moved = prefixOf(secondBanner);
  expect(moved).toMatch(/^relay-[0-9a-f]{8}$/);
  expect(secondBanner).toContain(
    `"relay" is held by the relay of ${folders[0]} (${runningOf(first, folders[0]).url}, pid ${first.child.pid}))`,
  );
  expect(readFileSync(join(folders[1]!, 'redis-prefix'), 'utf8').trim()).toBe(moved);

  await expectOwnChannels(first, folders[0]);
  await expectOwnChannels(second, folders[1]);
  expect(await speak(first, folders[0])).toMatchObject({ status: 200 });
  expect(await speak(second, folders[1])).toMatchObject({ status: 200 });
}, 240_000);
